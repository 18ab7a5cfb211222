"""`--tz` gives a source that states only UTC its local zone: the instants stay, the days move to
that zone; a source naming another place is still a contradiction."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from feeds.catalogue import day_slug
from feeds.errors import TimeZoneError
from feeds.pipeline import load_schedule

EVENT = "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20240101T000000Z\r\nSUMMARY:{uid}\r\nDTSTART:{start}\r\nDURATION:PT1H\r\nEND:VEVENT\r\n"


def sched_export(tmp_path: Path, zone: str, *starts: str) -> str:
    """An .ics shaped like Sched's export: X-WR-TIMEZONE and times as the test gives them."""
    events = "".join(EVENT.format(uid=f"s{n}", start=start) for n, start in enumerate(starts))
    text = f"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Sched//EN\r\nX-WR-TIMEZONE:{zone}\r\n{events}END:VCALENDAR\r\n"
    path = tmp_path / "export.ics"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_tz_gives_a_utc_stated_source_its_zone_and_keeps_every_instant(tmp_path: Path) -> None:
    # 02:30Z on 16 March is 22:30 EDT on the 15th: the session belongs to the 15th in New York.
    path = sched_export(tmp_path, "UTC", "20240316T023000Z", "20240316T150000Z")

    schedule = load_schedule([path], "America/New_York").schedule

    assert schedule.conference.timezone == "America/New_York"
    assert [s.start for s in schedule.sessions] == [
        datetime(2024, 3, 16, 2, 30, tzinfo=UTC),
        datetime(2024, 3, 16, 15, tzinfo=UTC),
    ]
    assert [day_slug(s, schedule.conference) for s in schedule.sessions] == ["2024-03-15", "2024-03-16"]


def test_floating_times_of_a_utc_stated_source_stay_utc_under_tz(tmp_path: Path) -> None:
    path = sched_export(tmp_path, "UTC", "20240316T023000")

    (session,) = load_schedule([path], "America/New_York").schedule.sessions

    assert session.start == datetime(2024, 3, 16, 2, 30, tzinfo=UTC)


def test_without_tz_a_utc_stated_source_stays_in_utc(tmp_path: Path) -> None:
    path = sched_export(tmp_path, "UTC", "20240316T023000Z")

    assert load_schedule([path]).schedule.conference.timezone == "UTC"


def test_a_source_naming_another_place_than_tz_is_still_refused(tmp_path: Path) -> None:
    path = sched_export(tmp_path, "Europe/Paris", "20240316T023000Z")

    with pytest.raises(TimeZoneError) as caught:
        load_schedule([path], "America/New_York")

    assert str(caught.value) == (
        f"{path} states time zone Europe/Paris, but --tz says America/New_York; drop --tz or fix the source"
    )
