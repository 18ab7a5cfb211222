"""Any iCalendar file: every way RFC 5545 §3.3.5 writes a time, shared UIDs, cancelled events."""

from __future__ import annotations

from pathlib import Path

import pytest

from feeds.errors import TimeZoneError
from feeds.model import Status
from feeds.pipeline import load_schedule

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "ics"
ZONES = FIXTURES / "zones.ics"


def test_tzid_floating_custom_vtimezone_utc_and_all_day_times() -> None:
    loaded = load_schedule([str(ZONES)])

    by_title = {s.title: s for s in loaded.schedule.sessions}
    assert loaded.formats == ("ics",)
    assert (loaded.schedule.conference.name, loaded.schedule.conference.timezone) == ("Zone Conf", "Europe/Paris")
    assert {title: (s.start.isoformat(), s.end.isoformat()) for title, s in by_title.items()} == {
        "In New York, by TZID": ("2026-04-07T15:00:00+00:00", "2026-04-07T16:00:00+00:00"),
        "Floating, in the calendar's zone": ("2026-04-07T09:00:00+00:00", "2026-04-07T09:45:00+00:00"),
        "In the file's own VTIMEZONE": ("2026-04-07T02:00:00+00:00", "2026-04-07T02:30:00+00:00"),
        "Withdrawn": ("2026-04-07T09:00:00+00:00", "2026-04-07T10:00:00+00:00"),
        "All day": ("2026-04-07T22:00:00+00:00", "2026-04-08T22:00:00+00:00"),
    }
    ny = by_title["In New York, by TZID"]
    assert (ny.room and ny.room.name, ny.track and ny.track.name, ny.source_id) == (
        "Hall A",
        "Systems",
        "same@example.org",
    )
    assert by_title["Withdrawn"].status is Status.CANCELLED


def test_a_shared_uid_keeps_every_event_with_a_warning() -> None:
    loaded = load_schedule([str(ZONES)])

    shared = [s for s in loaded.schedule.sessions if s.source_id == "same@example.org"]
    assert len(shared) == 2
    assert len({s.id for s in loaded.schedule.sessions}) == 5
    assert [str(w) for w in loaded.warnings] == [
        f"{ZONES}: UID same@example.org is used by 2 events; each is kept as its own session"
    ]


def test_tz_contradicting_x_wr_timezone_stops() -> None:
    with pytest.raises(TimeZoneError) as caught:
        load_schedule([str(ZONES)], "Asia/Tokyo")

    assert (
        str(caught.value)
        == f"{ZONES} states time zone Europe/Paris, but --tz says Asia/Tokyo; drop --tz or fix the source"
    )


def test_wall_time_in_the_spring_gap_names_file_and_line() -> None:
    with pytest.raises(TimeZoneError) as caught:
        load_schedule([str(FIXTURES / "gap.ics")])

    assert str(caught.value) == (
        f"{FIXTURES / 'gap.ics'}:10: In the gap: 2026-03-29 02:30 does not exist in Europe/Paris (clocks go forward then)"
    )
