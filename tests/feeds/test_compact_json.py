from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feeds import compact_json


def test_compact_json_has_no_whitespace_keeps_characters_and_key_order() -> None:
    document = {"title": "Café 🚀", "persons": [{"name": "李"}], "room": None, "id": 7}

    text = compact_json.dumps(document)

    assert text == '{"title":"Café 🚀","persons":[{"name":"李"}],"room":null,"id":7}'


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON)
def test_compact_json_is_what_json_dumps_writes_with_the_same_options(value: object) -> None:
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    assert compact_json.dumps(value) == expected


def test_compact_json_refuses_what_json_cannot_write() -> None:
    with pytest.raises(TypeError):
        compact_json.dumps({"when": object()})
