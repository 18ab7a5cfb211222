"""TEXT escaping (RFC 5545 §3.3.11) byte for byte; the four-parser round trip is in tests/interop."""

from __future__ import annotations

import pytest
from icalendar import Event

from feeds.ical.text import Categories, Text, clean_text, escape


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("a\\Nb", "a\\\\Nb"),  # a speaker's literal backslash-N, not a line break
        ("a\\nb", "a\\\\nb"),
        ("a\\,b", "a\\\\\\,b"),
        ("a\\;b", "a\\\\\\;b"),
        ("a\\\\b", "a\\\\\\\\b"),
        ("one, two; three\nfour", "one\\, two\\; three\\nfour"),
        ("tab\tand: colon", "tab\tand: colon"),
    ],
)
def test_escape(text: str, written: str) -> None:
    assert escape(text) == written


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("a\r\nb\rc\nd", "a\nb\nc\nd"),
        ("bell\x07 esc\x1b nul\x00 del\x7f c1\x9b", "bell esc nul del c1"),
        ("tab\t", "tab\t"),
    ],
)
def test_what_text_cannot_carry_is_decided_before_escaping(text: str, kept: str) -> None:
    assert (clean_text(text), str(Text(text))) == (kept, kept)


def test_properties_are_written_with_our_escaping() -> None:
    event = Event()
    event.add("summary", Text("Why \\N is not a newline, really;"))
    event.add("categories", Categories(["AI\\N, ML", "Beginner"]))

    assert event.to_ical() == (
        b"BEGIN:VEVENT\r\nSUMMARY:Why \\\\N is not a newline\\, really\\;\r\n"
        b"CATEGORIES:AI\\\\N\\, ML,Beginner\r\nEND:VEVENT\r\n"
    )


def test_unicode_line_and_paragraph_separators_become_line_breaks() -> None:
    # Python's splitlines (vdirsyncer's, khal's) splits a content line at U+2028 and U+2029.
    assert clean_text("one\u2028two\u2029three") == "one\ntwo\nthree"
