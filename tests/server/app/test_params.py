from __future__ import annotations

import pytest

from server.pages.params import BadPath, id_segment, is_safe_id, query_items, slug_segment


@pytest.mark.parametrize(
    ("segment", "slug"),
    [
        ("master-stage.ics", "master-stage"),
        ("2026-04-07.ics", "2026-04-07"),
        ("x.ics", "x"),
    ],
)
def test_slug_segment_accepts_slugs(segment: str, slug: str) -> None:
    assert slug_segment(segment, ".ics") == slug


@pytest.mark.parametrize(
    "segment",
    [
        "..",
        "../x.ics",
        ".ics",
        "-x.ics",
        "Master.ics",
        "a\x00b.ics",
        "a b.ics",
        "x.ICS",
        "x",
        "a" * 10_000 + ".ics",
    ],
)
def test_slug_segment_rejects_anything_else(segment: str) -> None:
    with pytest.raises(BadPath):
        slug_segment(segment, ".ics")


def test_id_segment_accepts_hex_ids() -> None:
    assert id_segment("108d1593db.ics", ".ics") == "108d1593db"


@pytest.mark.parametrize(
    "segment",
    [
        "..ics",
        "../../etc/passwd.ics",
        "a/b.ics",
        "\x00.ics",
        "é.ics",
        "x" * 500 + ".ics",
    ],
)
def test_id_segment_rejects_unsafe_names(segment: str) -> None:
    with pytest.raises(BadPath):
        id_segment(segment, ".ics")


def test_is_safe_id_matches_the_server_rule() -> None:
    assert (is_safe_id("108d1593db"), is_safe_id("../x"), is_safe_id("")) == (
        True,
        False,
        False,
    )


def test_query_items_bounds_count_and_size() -> None:
    fine = [("room", "master-stage")] * 3

    assert query_items(fine) == fine
    with pytest.raises(BadPath):
        query_items([("room", "x")] * 1000)
    with pytest.raises(BadPath):
        query_items([("room", "x" * 10_000)])
    with pytest.raises(BadPath):
        query_items([("room", "a\x00")])
