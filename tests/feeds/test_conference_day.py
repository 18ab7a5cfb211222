"""The conference day: one day-change time per conference, from the source (frab's `day_change`,
c3voc's and pretalx's day starts) or `--day-change`, used by day feeds, pages and exports alike."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import UTC, date, datetime, time, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from feeds.catalogue import day_slug
from feeds.exports.frab_layout import layout
from feeds.merge import merge
from feeds.model import Conference, Schedule, Session
from feeds.pipeline import load_schedule
from feeds.sources.records import SessionRecord, SourceBatch
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


def merged(spans: list[tuple[datetime, datetime]], day_change: time) -> Schedule:
    """The schedule merged from sessions at `spans` (wall times in Berlin, or instants)."""
    records = tuple(SessionRecord("s.ics", n, f"Talk {n}", start, end) for n, (start, end) in enumerate(spans))
    return merge([SourceBatch("ics", records, day_change=day_change)], "Europe/Berlin").schedule


def merged_dates(spans: list[tuple[datetime, datetime]], day_change: time) -> tuple[date, date]:
    conference = merged(spans, day_change).conference
    return conference.start_date, conference.end_date


def test_a_session_ending_at_midnight_leaves_the_conference_on_its_day() -> None:
    assert merged_dates([(datetime(2024, 12, 27, 10), datetime(2024, 12, 28, 0))], time()) == (
        date(2024, 12, 27),
        date(2024, 12, 27),
    )


def test_a_party_after_midnight_ends_the_conference_on_the_day_it_began_when_the_day_changes_later() -> None:
    spans = [
        (datetime(2024, 12, 27, 10), datetime(2024, 12, 27, 11)),
        (datetime(2024, 12, 27, 22), datetime(2024, 12, 28, 2)),
    ]

    assert merged_dates(spans, time(6)) == (date(2024, 12, 27), date(2024, 12, 27))


def test_a_conference_opening_after_midnight_starts_on_the_day_its_first_session_belongs_to() -> None:
    assert merged_dates([(datetime(2024, 12, 28, 1), datetime(2024, 12, 28, 2))], time(6)) == (
        date(2024, 12, 27),
        date(2024, 12, 27),
    )


def test_a_session_running_past_the_day_change_ends_the_conference_on_the_next_day() -> None:
    assert merged_dates([(datetime(2024, 12, 27, 22), datetime(2024, 12, 28, 7))], time(6)) == (
        date(2024, 12, 27),
        date(2024, 12, 28),
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.datetimes(datetime(2024, 3, 28), datetime(2024, 4, 3), timezones=st.just(UTC)),
            st.timedeltas(timedelta(0), timedelta(hours=30)),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([time(), time(4), time(6, 30)]),
)
def test_every_day_a_day_feed_names_is_within_the_conference_dates(
    spans: list[tuple[datetime, timedelta]], day_change: time
) -> None:
    """Whatever the sessions' times, across Berlin's spring change, and wherever the day
    changes: the first day feed is the conference's first day, and none is after its last."""
    schedule = merged([(start, start + length) for start, length in spans], day_change)

    conference = schedule.conference
    days = {date.fromisoformat(day_slug(s, conference)) for s in schedule.sessions}
    assert (min(days), max(days) <= conference.end_date) == (conference.start_date, True)
