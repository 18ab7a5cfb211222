"""From the schedule to the events a push wants (server/caldav/events.py): the sessions named, in
schedule order, an unknown ID refused by name, cancelled ones left out, and each event the feeds'
own bytes without METHOD (RFC 4791 section 4.1)."""

from __future__ import annotations

import dataclasses

import pytest

from feeds.ical import EventCache, render_session
from server.caldav.errors import UnknownSession
from server.caldav.events import desired_events, select_sessions
from server.caldav.plan import DesiredEvent
from tests.helpers.push_helpers import CONFERENCE, make_schedule, withdrawn

SCHEDULE = make_schedule(4)


def test_the_sessions_named_come_in_schedule_order_once_each() -> None:
    chosen = select_sessions(SCHEDULE, ["s3", "s0", "s3"])

    assert [s.id for s in chosen] == ["s0", "s3"]


def test_unknown_ids_are_refused_by_name() -> None:
    with pytest.raises(UnknownSession) as raised:
        select_sessions(SCHEDULE, ["s1", "nope", "s9"])

    assert str(raised.value) == "no session 'nope', 's9' in PyTorch Conference Europe 2026"


def test_each_event_is_the_feeds_event_without_method_and_cancelled_ones_are_not_wanted() -> None:
    schedule = withdrawn(SCHEDULE, "s1")
    s2 = dataclasses.replace(schedule.sessions[2], revision=5)
    schedule = dataclasses.replace(schedule, sessions=(*schedule.sessions[:2], s2, *schedule.sessions[3:]))
    base = "https://confcal.example.org/pytorch/"

    desired = desired_events(schedule, select_sessions(schedule, ["s0", "s1", "s2"]), base_url=base)

    assert desired == [
        DesiredEvent(
            uid=f"{s.id}@{CONFERENCE.slug}.confcal",
            revision=s.revision,
            ics=render_session(CONFERENCE, s, method=None, base_url=base),
        )
        for s in (schedule.sessions[0], s2)
    ]
    assert [e.revision for e in desired] == [0, 5]
    assert [b"METHOD:" in e.ics for e in desired] == [False, False]
    assert [f"URL:{base}#session-".encode() in e.ics for e in desired] == [True, True]


def test_events_are_rendered_once_through_the_cache_the_feeds_share() -> None:
    cache = EventCache()
    sessions = select_sessions(SCHEDULE, ["s0", "s2"])

    first = desired_events(SCHEDULE, sessions, cache=cache)
    again = desired_events(SCHEDULE, sessions, cache=cache)
    feed = render_session(CONFERENCE, SCHEDULE.sessions[0], method=None, cache=cache)

    assert again == first
    assert feed == first[0].ics
    assert (cache.renders, len(cache)) == (2, 2)
