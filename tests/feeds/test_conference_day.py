"""The conference day: one day-change time per conference, from the source (frab's `day_change`,
c3voc's and pretalx's day starts) or `--day-change`, used by day feeds, pages and exports alike."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import UTC, date, datetime, time

from feeds.catalogue import day_slug
from feeds.exports.frab_layout import layout
from feeds.model import Conference, Schedule, Session
from feeds.pipeline import load_schedule
from tests.helpers.paths import SHARED

NIGHT = Conference("Night Conf", "Europe/Berlin", date(2024, 12, 27), date(2024, 12, 28), day_change=time(6))


def session(hour: int, minute: int = 0, day: int = 27) -> Session:
    start = datetime(2024, 12, day, hour, minute, tzinfo=UTC)
    return Session(f"s{day}{hour}{minute}", f"{hour}:{minute}", start, start)


def test_a_session_before_the_day_change_belongs_to_the_day_before() -> None:
    # 23:30Z on the 27th is 00:30 on the 28th in Berlin, before the 06:00 day change.
    assert [NIGHT.day_of(session(h, m).start) for h, m in ((23, 30), (5, 0))] == [
        date(2024, 12, 27),
        date(2024, 12, 27),
    ]


def test_without_a_day_change_the_day_is_the_local_date() -> None:
    midnight = dataclasses.replace(NIGHT, day_change=time())

    assert midnight.day_of(session(23, 30).start) == date(2024, 12, 28)


def test_the_frab_export_cuts_its_days_where_the_day_feeds_do() -> None:
    sessions = (session(10), session(23, 30), session(6, day=28))
    schedule = Schedule(NIGHT, sessions)

    days = layout(schedule).days

    exported = {s.id: day.date for day in days for s, _ in day.numbered}
    assert exported == {s.id: date.fromisoformat(day_slug(s, NIGHT)) for s in sessions}
    assert [d.start.isoformat() for d in days] == ["2024-12-27T06:00:00+01:00", "2024-12-28T06:00:00+01:00"]


def test_a_c3voc_export_day_start_is_the_conference_day_change() -> None:
    schedule = load_schedule([str(SHARED / "data" / "ccc_38c3_2024_schedule.xml")]).schedule

    days = Counter(day_slug(s, schedule.conference) for s in schedule.sessions)

    assert (schedule.conference.day_change, sorted(days)) == (
        time(6),
        ["2024-12-27", "2024-12-28", "2024-12-29", "2024-12-30"],
    )
    after_midnight = [s for s in schedule.sessions if s.start.astimezone(schedule.conference.zone).hour < 6]
    assert after_midnight and all(
        day_slug(s, schedule.conference) < s.start.astimezone(schedule.conference.zone).date().isoformat()
        for s in after_midnight
    )


def test_pretalx_day_starts_give_the_day_change() -> None:
    schedule = load_schedule([str(SHARED / "data" / "pretalx_rc3_2020_schedule.json")], "Europe/Berlin").schedule

    assert schedule.conference.day_change == time(4)


def test_day_change_given_at_ingest_wins_over_the_source() -> None:
    path = str(SHARED / "data" / "ccc_38c3_2024_schedule.xml")

    assert load_schedule([path], day_change=time(5)).schedule.conference.day_change == time(5)
