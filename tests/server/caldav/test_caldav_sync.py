"""The pusher's behaviour, run identically against the in-memory twin, Radicale and Xandikos (the
scenarios every server must pass are in test_matrix.py, on all seven)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from feeds.ical import uid
from server.caldav.errors import ServerUnreachable, TransientError
from server.caldav.events import desired_events, select_sessions
from server.caldav.plan import uid_of
from server.caldav.retry import NO_WAIT, RetryPolicy
from server.caldav.state import SyncState
from server.caldav.sync import push
from tests.helpers.push_helpers import (
    CONFERENCE,
    Backend,
    MemoryBackend,
    edited,
    make_schedule,
    moved,
    summary_of,
)
from tests.helpers.push_runs import name_of, run_push


def test_a_push_not_told_to_overwrite_keeps_the_owners_edit(backend: Backend, engine: Engine) -> None:
    schedule = make_schedule(1)
    run_push(backend, engine, schedule, ["s0"])
    mine = edited(backend.contents()[name_of("s0")], "Mine")
    backend.owner_put(name_of("s0"), mine)
    changed = moved(schedule, "s0")
    state = SyncState(engine, backend.storage.url, scope=schedule.conference.slug)

    summary = push(backend.storage, state, desired_events(changed, select_sessions(changed, ["s0"])), retry=NO_WAIT)

    assert summary.line() == "created 0, updated 0, deleted 0, unchanged 0, conflicts 1"
    assert summary_of(backend.contents()[name_of("s0")]) == "Mine"


@pytest.mark.parametrize("method", ["PROPFIND", "PUT"])
def test_the_callers_retry_policy_governs_the_listing_and_the_writes(method: str, engine: Engine) -> None:
    """A caller that asks for one attempt (the attach form answers while the person waits) gets
    the first failure, of the listing as of a write, not five tries with their waits."""
    backend = MemoryBackend()
    failed: list[str] = []

    def fails_once(sent: str) -> None:
        if sent == method and not failed:
            failed.append(sent)
            raise TransientError(f"{sent}: connection refused", unreachable=True)

    backend.memory.fault = fails_once
    schedule = make_schedule(1)
    state = SyncState(engine, backend.storage.url, scope=schedule.conference.slug)
    one_try = RetryPolicy(attempts=1, sleep=lambda _seconds: None)

    with pytest.raises(ServerUnreachable):
        push(backend.storage, state, desired_events(schedule, schedule.sessions), retry=one_try)

    assert failed == [method]


def test_progress_is_reported_after_each_change_in_plan_order(engine: Engine) -> None:
    backend = MemoryBackend()
    schedule = make_schedule(3)
    run_push(backend, engine, schedule, ["s0", "s2"])
    state = SyncState(engine, backend.storage.url, scope=schedule.conference.slug)
    seen: list[tuple[int, int, str, str]] = []

    push(
        backend.storage,
        state,
        desired_events(schedule, select_sessions(schedule, ["s1", "s2"])),
        retry=NO_WAIT,
        progress=lambda done, total, action, outcome: seen.append((done, total, uid_of(action), outcome)),
    )

    assert seen == [
        (1, 3, uid(CONFERENCE, schedule.sessions[0]), "deleted"),
        (2, 3, uid(CONFERENCE, schedule.sessions[1]), "created"),
        (3, 3, uid(CONFERENCE, schedule.sessions[2]), "unchanged"),
    ]
