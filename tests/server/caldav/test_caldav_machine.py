"""A Hypothesis state machine over pick / unpick / reschedule / owner edit / owner delete / push,
run against the in-memory twin and real Radicale and Xandikos servers.

The model: an event the owner touched is theirs from then on (kept, reported as a conflict when
the schedule changes it); every other picked session is in the calendar exactly as the feed
renders it; every other unpicked one is absent; the owner's own event never changes; no UID
appears twice; and a push right after a push writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import create_engine
from sqlalchemy.pool import StaticPool

from server.caldav.content import same_event
from server.caldav.events import desired_events, select_sessions
from server.caldav.storage import name_for
from tests.helpers.push_helpers import (
    Backend,
    DavBackend,
    DavServer,
    MemoryBackend,
    edited,
    event_ics,
    make_schedule,
    moved,
    uid_counts,
)
from tests.helpers.push_runs import name_of, run_push

SESSIONS = [f"s{i}" for i in range(3)]  # few, so edits and reschedules meet
OWN = event_ics("dentist@owner.example", "Dentist", make_schedule(1).sessions[0].start)


class PushMachine(RuleBasedStateMachine):
    make_backend: Callable[[], Backend]

    def __init__(self) -> None:
        super().__init__()
        self.backend = type(self).make_backend()
        self.engine = create_engine("sqlite://", poolclass=StaticPool)
        self.schedule = make_schedule(len(SESSIONS))
        self.picks: set[str] = set()
        self.owned: dict[str, bytes | None] = {}  # name -> the owner's version (None: deleted)
        self.edits = 0
        self.backend.owner_put("own.ics", OWN)

    def teardown(self) -> None:
        self.backend.close()
        self.engine.dispose()

    @initialize(first=st.sets(st.sampled_from(SESSIONS)))
    def first_push(self, first: set[str]) -> None:
        # Start from a pushed calendar, so owner edits have something to touch from step one.
        self.picks = set(first)
        self.push()

    @rule(session=st.sampled_from(SESSIONS))
    def pick(self, session: str) -> None:
        self.picks.add(session)

    @rule(session=st.sampled_from(SESSIONS))
    def unpick(self, session: str) -> None:
        self.picks.discard(session)

    @rule(session=st.sampled_from(SESSIONS), minutes=st.sampled_from([-30, 15, 60]))
    def reschedule(self, session: str, minutes: int) -> None:
        self.schedule = moved(self.schedule, session, minutes)

    @rule(data=st.data())
    def owner_edit(self, data: st.DataObject) -> None:
        contents = self.backend.contents()
        ours = sorted(name_of(s) for s in SESSIONS if name_of(s) in contents)
        if ours:
            name = data.draw(st.sampled_from(ours))
            self.edits += 1
            mine = edited(contents[name], f"Owner's edit {self.edits}")
            self.backend.owner_put(name, mine)
            self.owned[name] = mine

    @rule(data=st.data())
    def owner_delete(self, data: st.DataObject) -> None:
        contents = self.backend.contents()
        ours = sorted(name_of(s) for s in SESSIONS if name_of(s) in contents)
        if ours:
            name = data.draw(st.sampled_from(ours))
            self.backend.owner_delete(name)
            self.owned[name] = None

    @rule()
    def push(self) -> None:
        summary = run_push(self.backend, self.engine, self.schedule, sorted(self.picks))
        writes = self.backend.writes()
        again = run_push(self.backend, self.engine, self.schedule, sorted(self.picks))

        assert self.backend.writes() == writes
        assert again.created == again.updated == again.deleted == 0
        if not self.owned:
            assert summary.conflicts == again.conflicts == []
        self._check_calendar()
        # An owner-deleted event that is no longer picked is forgotten: a later pick re-creates it.
        for session in SESSIONS:
            if self.owned.get(name_of(session), b"") is None and session not in self.picks:
                del self.owned[name_of(session)]

    def _check_calendar(self) -> None:
        contents = self.backend.contents()
        assert same_event(contents["own.ics"], OWN)
        assert set(uid_counts(contents).values()) <= {1}
        picked = select_sessions(self.schedule, sorted(self.picks))
        desired = {name_for(e.uid): e.ics for e in desired_events(self.schedule, picked)}
        for session in SESSIONS:
            name = name_of(session)
            if name in self.owned:
                owners = self.owned[name]
                assert (name in contents) == (owners is not None)
                assert owners is None or same_event(contents[name], owners)
            elif name in desired:
                assert same_event(contents[name], desired[name])
            else:
                assert name not in contents


def test_state_machine_against_the_memory_twin() -> None:
    machine = type(
        "MemoryPushMachine",
        (PushMachine,),
        {"make_backend": staticmethod(MemoryBackend)},
    )
    run_state_machine_as_test(
        machine,
        settings=settings(max_examples=60, stateful_step_count=20, deadline=None),
    )


@pytest.mark.parametrize("server_name", ["radicale", "xandikos"])
def test_state_machine_against_a_real_server(server_name: str, request: pytest.FixtureRequest) -> None:
    server: DavServer = request.getfixturevalue(server_name)
    machine = type(
        "DavPushMachine",
        (PushMachine,),
        {"make_backend": staticmethod(lambda: DavBackend(server))},
    )
    run_state_machine_as_test(
        machine,
        settings=settings(max_examples=20, stateful_step_count=12, deadline=None),
    )
