"""feeds.ical.alarm: `alarm=` parsing and the VALARM's place in cached event bytes."""

from __future__ import annotations

import pytest

from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.errors import AlarmError, FilterError
from feeds.ical import EventCache, render_calendar
from feeds.ical.alarm import build_alarm, parse_alarm
from feeds.ical.event import render_event
from feeds.ical.text import Text
from feeds.pipeline import load_schedule
from feeds.query import FeedQuery


@pytest.mark.parametrize(("value", "minutes"), [("0", 0), ("10", 10), (" 1440 ", 1440)])
def test_parse_alarm_accepts_whole_minutes_up_to_a_day(value: str, minutes: int) -> None:
    assert parse_alarm(value) == minutes


@pytest.mark.parametrize("value", ["", "-1", "1441", "1e3", "10.0", "٣"])
def test_parse_alarm_refuses_anything_else(value: str) -> None:
    with pytest.raises(AlarmError, match="alarm must be whole minutes from 0 to 1440"):
        parse_alarm(value)


def test_a_refused_alarm_is_quoted_up_to_40_characters() -> None:
    with pytest.raises(AlarmError) as refused:
        parse_alarm("9" * 50)

    assert str(refused.value) == f"alarm must be whole minutes from 0 to 1440, got '{'9' * 40}'"


def test_feed_query_takes_alarm_beside_filters_and_it_is_a_filter_error() -> None:
    query = FeedQuery.from_params([("room", "a"), ("alarm", "10"), ("alarm", "10")])

    assert (query.room, query.alarm) == (("a",), 10)
    assert issubclass(AlarmError, FilterError)
    with pytest.raises(AlarmError, match="twice"):
        FeedQuery.from_params([("alarm", "10"), ("alarm", "20")])


def test_each_alarm_renders_each_event_once_and_keeps_the_plain_bytes() -> None:
    schedule = load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule
    sessions = list(schedule.sessions)
    cache = EventCache()
    plain = render_calendar(schedule.conference, sessions, title="T", cache=cache)

    first = render_calendar(schedule.conference, sessions, title="T", cache=cache, alarm=10)
    again = render_calendar(schedule.conference, sessions, title="T", cache=cache, alarm=10)
    after = render_calendar(schedule.conference, sessions, title="T", cache=cache)

    assert first == again
    assert after == plain
    assert first.count(b"BEGIN:VALARM") == len(sessions)
    assert cache.renders == 2 * len(sessions)


def test_a_reminder_is_a_display_alarm_the_given_minutes_before_the_start_named_for_the_session() -> None:
    schedule = load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule
    session = schedule.sessions[0]

    data = render_event(schedule.conference, session, alarm=15)

    lines = data.decode().replace("\r\n ", "").split("\r\n")
    start = lines.index("BEGIN:VALARM")
    assert lines[start : start + 5] == [
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        f"DESCRIPTION:{Text(session.title).to_ical().decode()}",
        "TRIGGER:-PT15M",
        "END:VALARM",
    ]


def test_a_reminder_for_a_session_without_a_title_reads_session() -> None:
    assert build_alarm(5, "").to_ical() == (
        b"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Session\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n"
    )
