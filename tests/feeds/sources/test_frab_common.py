"""Durations, wall times, the stated zone and markup shared by the frab XML and JSON readers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from feeds.errors import SourceError, TimeZoneError
from feeds.sources.frab_common import fixed_zone_name, join_text, parse_duration, stated_zone


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("00:25", timedelta(minutes=25)),
        ("1:30", timedelta(hours=1, minutes=30)),
        ("25:00", timedelta(hours=25)),
        ("1:02:00", timedelta(days=1, hours=2)),
        ("0:00:45", timedelta(minutes=45)),
    ],
)
def test_durations_hh_mm_and_d_hh_mm(text: str, expected: timedelta) -> None:
    assert parse_duration(text, source="s.xml", line=3) == expected


@pytest.mark.parametrize("text", ["", "30", "00:60", "1:24:00", "00:30:00:00", "-0:30", "half"])
def test_bad_durations_name_file_line_and_value(text: str) -> None:
    with pytest.raises(SourceError) as caught:
        parse_duration(text, source="s.xml", line=3)

    assert str(caught.value).startswith(f"s.xml:3: duration {text!r}")


def test_fixed_zone_names_invert_the_sign_like_posix() -> None:
    names = [fixed_zone_name(timedelta(hours=h)) for h in (1, -5, 0)] + [
        fixed_zone_name(timedelta(hours=5, minutes=30))
    ]

    assert names == ["Etc/GMT-1", "Etc/GMT+5", "Etc/UTC", None]


def test_a_stated_zone_that_agrees_with_the_offsets_is_kept() -> None:
    summer = datetime(2025, 7, 1, 10, tzinfo=timezone(timedelta(hours=2)))
    winter = datetime(2025, 2, 1, 10, tzinfo=timezone(timedelta(hours=1)))

    assert stated_zone("Europe/Brussels", [summer, winter], source="s.xml") == ("Europe/Brussels", None)


def test_offsets_that_differ_from_the_zone_and_each_other_leave_no_zone() -> None:
    a = datetime(2025, 2, 1, 10, tzinfo=timezone(timedelta(hours=1)))
    b = datetime(2025, 2, 1, 10, tzinfo=timezone(timedelta(hours=2)))

    zone, warning = stated_zone("UTC", [a, b], source="s.xml")

    assert (zone, warning) == (
        None,
        "time_zone_name says UTC but event dates are +01:00 (e.g. 2025-02-01T10:00:00+01:00); the dates' offsets are used",
    )


def test_an_unknown_zone_name_is_an_error_naming_file_and_line() -> None:
    with pytest.raises(TimeZoneError) as caught:
        stated_zone("Mars/Olympus", [], source="s.xml", line=4)

    assert str(caught.value) == "s.xml:4: time_zone_name 'Mars/Olympus' is not an IANA time zone such as Europe/Berlin"


def test_html_becomes_text_and_markdown_stays() -> None:
    html = "<p>First &amp; <em>best</em>.</p><ul><li>one</li><li>two</li></ul>"

    assert join_text(html, "**bold** <3", html) == "First & best.\n\n- one\n- two\n\n**bold** <3"
