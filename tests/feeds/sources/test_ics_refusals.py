"""A refused .ics says in one line of our words which file and line and what is wrong; a file of
several VCALENDARs is read whole; a VTIMEZONE confcal cannot follow is read from tzdata when its
TZID is an IANA name. The files are our own equivalents of icalendar's odd test calendars."""

from __future__ import annotations

from pathlib import Path

import pytest

from feeds.errors import SourceError
from feeds.pipeline import load_schedule

REFUSALS = Path(__file__).resolve().parents[2] / "fixtures" / "ics" / "refusals"


def refusal(name: str) -> str:
    with pytest.raises(SourceError) as caught:
        load_schedule([str(REFUSALS / name)], "UTC")
    return str(caught.value)


def test_an_empty_calendar_holds_no_events() -> None:
    assert refusal("empty.ics") == f"{REFUSALS / 'empty.ics'}:1: is an iCalendar file that holds no events"


@pytest.mark.parametrize(
    ("name", "value"), [("invalid_start.ics", "2026-06-01 10:00"), ("invalid_start_date.ics", "2026060")]
)
def test_an_invalid_dtstart_is_named_with_its_line(name: str, value: str) -> None:
    path = REFUSALS / name

    assert refusal(name) == (
        f"no session with a title and a time found in {path} ({path}:8: C: DTSTART {value!r} is not an"
        " iCalendar date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS))"
    )


def test_a_vtimezone_of_rdate_periods_with_its_own_tzid_is_refused_at_its_line() -> None:
    path = REFUSALS / "rdate_period.ics"

    assert refusal("rdate_period.ics") == (
        f"no session with a title and a time found in {path} ({path}:4: VTIMEZONE Custom/Fiji cannot be read"
        " (its onsets are given as RDATE periods), so A cannot be placed)"
    )


def test_a_vtimezone_of_rdate_periods_with_an_iana_tzid_is_read_from_tzdata_with_a_warning() -> None:
    path = REFUSALS / "rdate_period_iana.ics"

    loaded = load_schedule([str(path)])

    assert [(s.title, s.start.isoformat()) for s in loaded.schedule.sessions] == [("A", "2026-05-31T22:00:00+00:00")]
    assert [str(w) for w in loaded.warnings] == [
        f"{path}:4: VTIMEZONE Pacific/Fiji cannot be read (its onsets are given as RDATE periods);"
        " its times are read in the IANA zone Pacific/Fiji"
    ]


def test_a_vtimezone_after_the_events_using_it_is_still_used() -> None:
    loaded = load_schedule([str(REFUSALS / "forward_reference.ics")], "America/New_York")

    assert [(s.title, s.start.isoformat()) for s in loaded.schedule.sessions] == [("B", "2026-06-01T14:00:00+00:00")]


def test_a_file_of_two_vcalendars_is_read_whole() -> None:
    loaded = load_schedule([str(REFUSALS / "two_calendars.ics")], "UTC")

    assert [s.title for s in loaded.schedule.sessions] == ["D1", "D2", "D3"]


def test_an_event_left_open_is_refused_where_the_nesting_breaks() -> None:
    assert refusal("never_closed.ics") == (
        f"{REFUSALS / 'never_closed.ics'}:7: is not a readable iCalendar file:"
        " END:VCALENDAR comes while BEGIN:VEVENT (line 3) is still open"
    )
