"""The pusher end to end on the servers people's calendars run on: sabre/dav (Nextcloud,
Baikal), Cyrus (Fastmail) and SOGo, started from ../shared/caldav-servers and reached through the
cueing proxy (tests/helpers/cue_proxy.py), which loses an answer on cue.

- A UID the account holds elsewhere: Cyrus refuses a second object with it in ANY calendar of the
  account (403 unique-scheduling-object-resource with the holder's href); that event is left alone
  and reported, the others are pushed. sabre/dav and SOGo accept the same UID in two calendars.
- Our own event by meaning: Cyrus splits CATEGORIES into one line per value, SOGo adds CLASS:PUBLIC;
  after a lost answer the next step still recognises what it wrote and adopts it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from feeds.ical import uid
from feeds.model import Level, Schedule, Track
from server.caldav import service
from server.caldav.events import desired_events, select_sessions
from server.caldav.retry import NO_WAIT
from server.caldav.state import SyncState
from server.caldav.target import SessionIds, SyncOptions, Target
from server.crypto import Password
from server.store import Store
from tests.helpers.cue_proxy import CueingServer, cueing
from tests.helpers.push_helpers import (
    CONFERENCE,
    DavBackend,
    edited,
    lose_answer,
    make_schedule,
    moved,
    owner_put,
    start_of,
    summary_of,
    uid_counts,
)
from tests.helpers.push_runs import name_of, run_push, session_ids


def _rich(schedule: Schedule) -> Schedule:
    """Sessions with every field we write: three CATEGORIES (Cyrus splits them), a description
    long enough to be folded, a URL."""
    sessions = tuple(
        dataclasses.replace(
            s,
            track=Track("Compilers"),
            level=Level("Advanced"),
            description="Bring a laptop; the room has power at every seat, and the talk is recorded.",
            url=f"https://example.org/sessions/{s.id}",
        )
        for s in schedule.sessions
    )
    return dataclasses.replace(schedule, sessions=sessions)


SCHEDULE = _rich(make_schedule(3))
OPTIONS = SyncOptions(retry=NO_WAIT, allow_private=True)  # the servers listen on loopback
UID = {s.id: uid(CONFERENCE, s) for s in SCHEDULE.sessions}


def ours(session_id: str) -> bytes:
    """Exactly what the pusher writes for the session (and what a download of it holds)."""
    (event,) = desired_events(SCHEDULE, select_sessions(SCHEDULE, [session_id]))
    return event.ics


def remembered(backend: DavBackend, engine: Engine) -> list[str]:
    return sorted(SyncState(engine, backend.storage.url, scope=CONFERENCE.slug).rows())


class Calendars:
    """A backend on a fresh calendar of one shared server, and any other calendars a test makes;
    all deleted afterwards, because Cyrus holds a UID once per account."""

    def __init__(self, server: CueingServer) -> None:
        self.server = server
        self.made: list[str] = []
        self.backend = DavBackend(server)
        self.made.append(self.backend.url)

    def another(self, name: str) -> str:
        url = self.server.new_calendar(name)
        self.made.append(url)
        return url

    def close(self) -> None:
        self.backend.close()
        for url in self.made:
            self.server.request("DELETE", url)


def _calendars(request: pytest.FixtureRequest, kind: str) -> Iterator[Calendars]:
    made = Calendars(cueing(request, kind))
    yield made
    made.close()


@pytest.fixture(params=["sabre", "cyrus", "sogo"])
def shared(request: pytest.FixtureRequest) -> Iterator[Calendars]:
    yield from _calendars(request, request.param)


@pytest.fixture(params=["cyrus", "sogo"])
def rewriting(request: pytest.FixtureRequest) -> Iterator[Calendars]:
    """The servers that rewrite what they store (Cyrus: CATEGORIES split; SOGo: CLASS added)."""
    yield from _calendars(request, request.param)


@pytest.fixture(params=["sabre", "sogo"])
def accepting(request: pytest.FixtureRequest) -> Iterator[Calendars]:
    """The servers that accept one UID in two calendars of the account."""
    yield from _calendars(request, request.param)


@pytest.fixture
def cyrus_calendars(request: pytest.FixtureRequest) -> Iterator[Calendars]:
    yield from _calendars(request, "cyrus")


class TestUidHeldElsewhere:
    def test_cyrus_reports_a_uid_held_in_another_calendar_and_pushes_the_rest(
        self, cyrus_calendars: Calendars, engine: Engine
    ) -> None:
        # The attendee imported the session's download into their main calendar first.
        personal = cyrus_calendars.another("Personal")
        cyrus_calendars.server.request("PUT", personal + "imported.ics", ours("s1"), {"Content-Type": "text/calendar"})
        backend = cyrus_calendars.backend

        first = run_push(backend, engine, SCHEDULE, ["s0", "s1", "s2"])
        again = run_push(backend, engine, SCHEDULE, ["s0", "s1", "s2"])

        assert first.line() == "created 2, updated 0, deleted 0, unchanged 0, conflicts 1"
        assert first.conflicts == [f"{UID['s1']}: already in your calendar 'Personal'; left alone"]
        assert again.line() == "created 0, updated 0, deleted 0, unchanged 2, conflicts 1"
        assert sorted(backend.contents()) == [name_of("s0"), name_of("s2")]
        assert remembered(backend, engine) == sorted([UID["s0"], UID["s2"]])

    def test_a_uid_held_in_the_same_calendar_is_left_alone_on_every_server(
        self, shared: Calendars, engine: Engine
    ) -> None:
        backend = shared.backend
        backend.owner_put("imported.ics", ours("s1"))

        summary = run_push(backend, engine, SCHEDULE, ["s0", "s1", "s2"])

        assert summary.line() == "created 2, updated 0, deleted 0, unchanged 0, conflicts 1"
        assert summary.conflicts == [
            f"{UID['s1']}: the calendar already holds this UID in an event confcal did not create; left alone"
        ]
        assert uid_counts(backend.contents()) == {UID["s0"]: 1, UID["s1"]: 1, UID["s2"]: 1}
        assert sorted(backend.contents()) == sorted(["imported.ics", name_of("s0"), name_of("s2")])

    def test_sabre_and_sogo_accept_a_uid_held_in_another_calendar(self, accepting: Calendars, engine: Engine) -> None:
        calendars = accepting
        personal = calendars.another("Personal")
        calendars.server.request("PUT", personal + "imported.ics", ours("s1"), {"Content-Type": "text/calendar"})

        summary = run_push(calendars.backend, engine, SCHEDULE, ["s0", "s1", "s2"])

        assert (summary.line(), summary.conflicts) == ("created 3, updated 0, deleted 0, unchanged 0, conflicts 0", [])

    def test_the_push_service_counts_the_event_left_alone(self, cyrus_calendars: Calendars, tmp_path: Path) -> None:
        # What `confcal push` prints and the attach status stores: the conflicts' count and lines.
        server = cyrus_calendars.server
        target = Target(cyrus_calendars.backend.url, server.username, Password(server.password))
        with Store.open(str(tmp_path / "store.db")) as store:
            store.ingest(SCHEDULE)
            live = store.live()
            assert live is not None
            ids = session_ids(store, 0, 1, 2)
            (held,) = desired_events(live, select_sessions(live, [ids[1]]))
            personal = cyrus_calendars.another("Personal")
            server.request("PUT", personal + "imported.ics", held.ics, {"Content-Type": "text/calendar"})

            result = service.sync(store, target, SessionIds(ids), options=OPTIONS)

        assert (result.counts.created, result.counts.conflicts) == (2, 1)
        assert result.conflicts == (f"{held.uid}: already in your calendar 'Personal'; left alone",)


class TestOurEventByMeaning:
    def test_a_lost_answer_to_a_create_is_adopted_and_the_event_follows_a_move(
        self, rewriting: Calendars, engine: Engine
    ) -> None:
        backend = rewriting.backend
        backend.cue(lose_answer("PUT", name_of("s0")))

        first = run_push(backend, engine, SCHEDULE, ["s0"])
        later = run_push(backend, engine, moved(SCHEDULE, "s0"), ["s0"])

        assert (first.line(), first.conflicts) == ("created 1, updated 0, deleted 0, unchanged 0, conflicts 0", [])
        assert later.line() == "created 0, updated 1, deleted 0, unchanged 0, conflicts 0"
        assert start_of(backend.contents()[name_of("s0")]) == start_of(ours("s0")) + timedelta(minutes=60)

    def test_a_lost_answer_to_an_update_is_adopted_and_the_event_follows_the_next_move(
        self, rewriting: Calendars, engine: Engine
    ) -> None:
        backend = rewriting.backend
        run_push(backend, engine, SCHEDULE, ["s0"])
        backend.cue(lose_answer("PUT", name_of("s0")))

        first = run_push(backend, engine, moved(SCHEDULE, "s0"), ["s0"])
        later = run_push(backend, engine, moved(moved(SCHEDULE, "s0"), "s0"), ["s0"])

        assert (first.line(), first.conflicts) == ("created 0, updated 1, deleted 0, unchanged 0, conflicts 0", [])
        assert later.line() == "created 0, updated 1, deleted 0, unchanged 0, conflicts 0"
        assert start_of(backend.contents()[name_of("s0")]) == start_of(ours("s0")) + timedelta(minutes=120)

    def test_a_lost_answer_to_a_delete_counts_as_deleted(self, rewriting: Calendars, engine: Engine) -> None:
        backend = rewriting.backend
        run_push(backend, engine, SCHEDULE, ["s0", "s1"])
        backend.cue(lose_answer("DELETE", name_of("s1")))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert (summary.line(), summary.conflicts) == ("created 0, updated 0, deleted 1, unchanged 1, conflicts 0", [])
        assert sorted(backend.contents()) == [name_of("s0")]
        assert remembered(backend, engine) == [UID["s0"]]

    def test_the_owner_edit_of_the_summary_is_still_kept_as_a_conflict(
        self, rewriting: Calendars, engine: Engine
    ) -> None:
        backend = rewriting.backend
        run_push(backend, engine, SCHEDULE, ["s0"])
        mine = edited(backend.contents()[name_of("s0")], "Talk 0 - front row")
        backend.owner_put(name_of("s0"), mine)

        summary = run_push(backend, engine, moved(SCHEDULE, "s0"), ["s0"])

        assert summary.conflicts == [
            f"{UID['s0']}: changed in the calendar since the last push; kept the calendar's version"
        ]
        assert summary_of(backend.contents()[name_of("s0")]) == "Talk 0 - front row"
        assert start_of(backend.contents()[name_of("s0")]) == start_of(ours("s0"))

    def test_the_owner_edit_after_a_lost_create_answer_is_not_adopted(
        self, cyrus_calendars: Calendars, engine: Engine
    ) -> None:
        # Our create lands, its answer is lost, and the owner edits the summary before we read it
        # back. (Cyrus only: SOGo ignores If-None-Match, so its retry overwrites without a read.)
        backend = cyrus_calendars.backend
        backend.cue(lose_answer("PUT", name_of("s0")), owner_put("GET", name_of("s0"), edited(ours("s0"), "Mine")))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert summary.conflicts == [
            f"{UID['s0']}: {name_of('s0')} already exists in the calendar with other content; left alone"
        ]
        assert summary_of(backend.contents()[name_of("s0")]) == "Mine"
        assert remembered(backend, engine) == []
