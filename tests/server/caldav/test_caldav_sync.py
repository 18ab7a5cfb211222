"""The pusher's behaviour, run identically against the in-memory twin, Radicale and Xandikos."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import Engine

from feeds.ical import uid
from server.caldav.errors import ServerUnreachable, TransientError
from server.caldav.events import desired_events, select_sessions
from server.caldav.plan import uid_of
from server.caldav.retry import NO_WAIT, RetryPolicy
from server.caldav.state import SyncState
from server.caldav.storage import name_for
from server.caldav.sync import push
from tests.helpers.push_helpers import (
    CONFERENCE,
    Backend,
    MemoryBackend,
    edited,
    event_ics,
    make_schedule,
    moved,
    sequence_of,
    start_of,
    summary_of,
    uid_counts,
    withdrawn,
)
from tests.helpers.push_runs import name_of, run_push


class TestPush:
    def test_first_push_creates_exactly_the_picks_with_feed_uids_and_utc_instants(
        self, backend: Backend, engine: Engine
    ) -> None:
        schedule = make_schedule(4)

        summary = run_push(backend, engine, schedule, ["s0", "s2", "s3"])

        assert summary.line() == "created 3, updated 0, deleted 0, unchanged 0, conflicts 0"
        contents = backend.contents()
        expected = {uid(CONFERENCE, s): s.start for s in schedule.sessions if s.id in {"s0", "s2", "s3"}}
        assert uid_counts(contents) == {u: 1 for u in expected}
        assert {name_for(u): start for u, start in expected.items()} == {n: start_of(b) for n, b in contents.items()}

    def test_second_push_makes_no_put_and_no_delete(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(4)
        run_push(backend, engine, schedule, ["s0", "s1"])
        writes_before = backend.writes()

        summary = run_push(backend, engine, schedule, ["s0", "s1"])

        assert backend.writes() == writes_before
        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 2, conflicts 0"

    def test_moved_session_updated_in_place_and_withdrawn_one_deleted(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(4)
        run_push(backend, engine, schedule, ["s0", "s1", "s2"])
        sequence_before = sequence_of(backend.contents()[name_of("s1")])
        changed = withdrawn(moved(schedule, "s1", minutes=90), "s2")

        summary = run_push(backend, engine, changed, ["s0", "s1", "s2"])

        assert summary.line() == "created 0, updated 1, deleted 1, unchanged 1, conflicts 0"
        contents = backend.contents()
        assert sorted(contents) == sorted([name_of("s0"), name_of("s1")])
        moved_session = changed.session("s1")
        assert moved_session is not None
        assert start_of(contents[name_of("s1")]) == moved_session.start
        # Calendar apps take an update only when SEQUENCE rises: up by exactly one per revision.
        assert sequence_of(contents[name_of("s1")]) == sequence_before + 1

    def test_owner_edit_survives_a_schedule_change_and_is_reported(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(3)
        run_push(backend, engine, schedule, ["s0", "s1"])
        mine = edited(backend.contents()[name_of("s1")], "Talk 1 - sit near the door")
        backend.owner_put(name_of("s1"), mine)
        writes_before = backend.writes()

        summary = run_push(backend, engine, moved(schedule, "s1"), ["s0", "s1"])

        assert backend.writes() == writes_before
        assert summary_of(backend.contents()[name_of("s1")]) == "Talk 1 - sit near the door"
        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1"
        assert summary.conflicts == [
            f"{uid(CONFERENCE, schedule.sessions[1])}: changed in the calendar since the last push; kept the calendar's version"
        ]

    def test_owner_edit_alone_is_kept_silently(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(2)
        run_push(backend, engine, schedule, ["s0"])
        backend.owner_put(name_of("s0"), edited(backend.contents()[name_of("s0")], "Mine"))

        summary = run_push(backend, engine, schedule, ["s0"], overwrite=True)

        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 0"
        assert summary_of(backend.contents()[name_of("s0")]) == "Mine"

    def test_unpicked_event_deleted_and_owners_own_event_never_touched(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(3)
        lunch = event_ics("lunch-with-sam@owner.example", "Lunch with Sam", schedule.sessions[0].start)
        backend.owner_put("lunch.ics", lunch)
        run_push(backend, engine, schedule, ["s0", "s1"])
        owners_before = backend.contents()["lunch.ics"]

        summary = run_push(backend, engine, schedule, ["s0"], overwrite=True)

        assert summary.line() == "created 0, updated 0, deleted 1, unchanged 1, conflicts 0"
        contents = backend.contents()
        assert sorted(contents) == sorted(["lunch.ics", name_of("s0")])
        assert contents["lunch.ics"] == owners_before

    def test_owner_deleted_then_schedule_changed_is_a_conflict_not_a_resurrection(
        self, backend: Backend, engine: Engine
    ) -> None:
        schedule = make_schedule(2)
        run_push(backend, engine, schedule, ["s0"])
        backend.owner_delete(name_of("s0"))

        unchanged = run_push(backend, engine, schedule, ["s0"])
        changed = run_push(backend, engine, moved(schedule, "s0"), ["s0"])

        assert unchanged.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 0"
        assert changed.line() == "created 0, updated 0, deleted 0, unchanged 0, conflicts 1"
        assert backend.contents() == {}

    def test_same_uid_already_imported_by_the_owner_is_not_duplicated(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(2)
        (event,) = desired_events(schedule, select_sessions(schedule, ["s0"]))
        backend.owner_put("imported-from-download.ics", event.ics)

        summary = run_push(backend, engine, schedule, ["s0"])

        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 0, conflicts 1"
        assert uid_counts(backend.contents()) == {event.uid: 1}

    def test_a_push_for_another_conference_leaves_the_first_ones_events(self, backend: Backend, engine: Engine) -> None:
        first = make_schedule(2)
        other = dataclasses.replace(
            make_schedule(2),
            conference=dataclasses.replace(CONFERENCE, name="Other Conf 2026", slug=""),
        )
        run_push(backend, engine, first, ["s0", "s1"])

        summary = run_push(backend, engine, other, ["s1"])

        assert summary.line() == "created 1, updated 0, deleted 0, unchanged 0, conflicts 0"
        assert sorted(uid_counts(backend.contents())) == sorted(
            [uid(first.conference, s) for s in first.sessions] + [uid(other.conference, other.sessions[1])]
        )


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
