from __future__ import annotations

from feeds import compact_json


def test_compact_json_has_no_whitespace_keeps_characters_and_key_order() -> None:
    document = {"title": "Café 🚀", "persons": [{"name": "李"}], "room": None, "id": 7}

    text = compact_json.dumps(document)

    assert text == '{"title":"Café 🚀","persons":[{"name":"李"}],"room":null,"id":7}'
