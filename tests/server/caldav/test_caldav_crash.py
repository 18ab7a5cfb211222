"""Crashes and server errors mid-push: the next run finishes the job without duplicates."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from feeds.ical import uid
from server.caldav.content import same_event
from server.caldav.errors import ServerFailed, ServerUnreachable, TransientError
from server.caldav.storage import name_for
from tests.helpers.caldav_events import with_alarm
from tests.helpers.push_helpers import (
    Backend,
    DavBackend,
    DavServer,
    MemoryBackend,
    event_ics,
    lose_answer,
    make_schedule,
    moved,
    summary_of,
    uid_counts,
)
from tests.helpers.push_runs import name_of, run_push

PICKS = ["s0", "s1", "s2", "s3"]


@pytest.mark.parametrize("kind", ["radicale", "xandikos"])
def test_server_killed_after_storing_a_put_then_a_later_push_completes(
    kind: str, tmp_path: Path, engine: Engine
) -> None:
    schedule = make_schedule(5)
    # Dies right after storing the 2nd PUT, before answering it: the write took effect unseen.
    server = DavServer(kind, tmp_path / kind, die_after_puts=2).start()
    backend = DavBackend(server)
    try:
        with pytest.raises(ServerUnreachable):
            run_push(backend, engine, schedule, PICKS)
        server.die_after_puts = None
        server.start()  # same port, same data

        resumed = run_push(backend, engine, schedule, PICKS)
        again = run_push(backend, engine, schedule, PICKS)

        assert resumed.line() == "created 3, updated 0, deleted 0, unchanged 1, conflicts 0"
        assert again.line() == "created 0, updated 0, deleted 0, unchanged 4, conflicts 0"
        assert uid_counts(backend.contents()) == {uid(schedule.conference, s): 1 for s in schedule.sessions[:4]}
    finally:
        backend.close()
        server.stop()


@pytest.mark.parametrize("kind", ["radicale", "xandikos"])
def test_429_and_503_answers_are_retried_on_the_wire(kind: str, tmp_path: Path, engine: Engine) -> None:
    server = DavServer(kind, tmp_path / kind, busy_puts=4).start()
    backend = DavBackend(server)
    try:
        summary = run_push(backend, engine, make_schedule(2), ["s0", "s1"])

        assert summary.line() == "created 2, updated 0, deleted 0, unchanged 0, conflicts 0"
        assert server.counts()["PUT"] == 6
    finally:
        backend.close()
        server.stop()


def test_lost_answers_are_retried_into_a_412_and_adopted_not_written_twice(backend: Backend, engine: Engine) -> None:
    schedule = make_schedule(3)
    run_push(backend, engine, schedule, ["s0"])
    # The update of s0 and the create of s1 land unseen.
    backend.cue(lose_answer("PUT", name_of("s0")), lose_answer("PUT", name_of("s1")))

    summary = run_push(backend, engine, moved(schedule, "s0"), ["s0", "s1"])
    writes_before = backend.writes()
    again = run_push(backend, engine, moved(schedule, "s0"), ["s0", "s1"])

    assert summary.line() == "created 1, updated 1, deleted 0, unchanged 0, conflicts 0"
    assert again.line() == "created 0, updated 0, deleted 0, unchanged 2, conflicts 0"
    assert backend.writes() == writes_before
    assert uid_counts(backend.contents()) == {uid(schedule.conference, s): 1 for s in schedule.sessions[:2]}


def test_server_errors_are_retried_and_the_run_completes(engine: Engine) -> None:
    backend = MemoryBackend()
    backend.memory.fail_next(3, unreachable=False)  # three 503s, then the server recovers

    summary = run_push(backend, engine, make_schedule(2), ["s0", "s1"])

    assert summary.line() == "created 2, updated 0, deleted 0, unchanged 0, conflicts 0"


def test_a_server_that_keeps_failing_ends_the_run_with_one_error_saying_how_far_it_got(
    engine: Engine,
) -> None:
    backend = MemoryBackend()

    def broken_puts(method: str) -> None:
        if method == "PUT":
            raise TransientError("PUT: server error (HTTP 500)")

    backend.memory.fault = broken_puts

    with pytest.raises(ServerFailed) as raised:
        run_push(backend, engine, make_schedule(2), ["s0", "s1"])

    assert str(raised.value) == (
        "PUT: server error (HTTP 500) (gave up after 5 attempts); stopped at change 1 of 2, run again to finish"
    )


def test_lost_answer_to_a_delete_is_retried_into_a_404_and_counted_done(backend: Backend, engine: Engine) -> None:
    schedule = make_schedule(2)
    run_push(backend, engine, schedule, ["s0", "s1"])
    backend.cue(lose_answer("DELETE", name_of("s0")))

    summary = run_push(backend, engine, schedule, ["s1"])
    again = run_push(backend, engine, schedule, ["s1"])

    assert summary.line() == "created 0, updated 0, deleted 1, unchanged 1, conflicts 0"
    assert again.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 0"


def test_a_foreign_event_at_our_resource_name_is_left_alone(backend: Backend, engine: Engine) -> None:
    schedule = make_schedule(1)
    name = name_for(uid(schedule.conference, schedule.sessions[0]))
    foreign = event_ics("someone-else@example.org", "Not ours", schedule.sessions[0].start)
    backend.owner_put(name, foreign)

    summary = run_push(backend, engine, schedule, ["s0"], overwrite=True)

    ours = uid(schedule.conference, schedule.sessions[0])
    assert summary.conflicts == [f"{ours}: {name} already exists in the calendar with other content; left alone"]
    contents = backend.contents()
    assert sorted(contents) == [name]
    assert summary_of(contents[name]) == "Not ours"  # servers may reformat the body


def add_an_alarm_then_resume_and_move(backend: Backend, engine: Engine) -> None:
    """After a run that died between its PUT and its state row, the owner adds a reminder to the
    event it wrote: the next runs must neither adopt that event as ours nor overwrite it."""
    schedule = make_schedule(1)
    name = name_of("s0")
    owners = with_alarm(backend.contents()[name])
    backend.owner_put(name, owners)

    resumed = run_push(backend, engine, schedule, ["s0"])
    after_a_move = run_push(backend, engine, moved(schedule, "s0"), ["s0"])

    ours = uid(schedule.conference, schedule.sessions[0])
    left_alone = f"{ours}: {name} already exists in the calendar with other content; left alone"
    assert resumed.conflicts == after_a_move.conflicts == [left_alone]
    contents = backend.contents()
    assert sorted(contents) == [name]
    assert same_event(contents[name], owners) is True  # servers may reformat the body


def test_an_alarm_the_owner_added_after_a_crash_is_neither_adopted_nor_overwritten(engine: Engine) -> None:
    backend = MemoryBackend()
    # The run dies right after its PUT took effect: the answer is lost and every later request
    # fails, so no state row records the write.
    backend.memory.lose_next_responses(1)
    sent: list[str] = []

    def dead_after_the_put(method: str) -> None:
        if sent:
            raise TransientError(f"{method}: connection refused", unreachable=True)
        if method == "PUT":
            sent.append(method)

    backend.memory.fault = dead_after_the_put
    with pytest.raises(ServerUnreachable):
        run_push(backend, engine, make_schedule(1), ["s0"])
    backend.memory.fault = None

    add_an_alarm_then_resume_and_move(backend, engine)


@pytest.mark.parametrize("kind", ["radicale", "xandikos"])
def test_an_alarm_added_after_a_server_died_mid_push_is_neither_adopted_nor_overwritten(
    kind: str, tmp_path: Path, engine: Engine
) -> None:
    # The server stores the PUT and dies before answering it (as in the test above of a killed server).
    server = DavServer(kind, tmp_path / kind, die_after_puts=1).start()
    backend = DavBackend(server)
    try:
        with pytest.raises(ServerUnreachable):
            run_push(backend, engine, make_schedule(1), ["s0"])
        server.die_after_puts = None
        server.start()

        add_an_alarm_then_resume_and_move(backend, engine)
    finally:
        backend.close()
        server.stop()
