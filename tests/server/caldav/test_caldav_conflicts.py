"""The executor's conflict and write-time paths (server/caldav/execute.py), end to end on the
in-memory twin, Radicale and Xandikos. The owner's edits that land between our listing and our
write come from the servers' test wrapper on cue (dav_server.py), never from the product. Lost
answers are in test_caldav_crash.py."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine

from feeds.ical import uid
from server.caldav.content import same_event
from server.caldav.events import desired_events, select_sessions
from server.caldav.state import SyncState
from tests.helpers.push_helpers import (
    CONFERENCE,
    Backend,
    edited,
    event_ics,
    make_schedule,
    moved,
    owner_delete,
    owner_put,
    start_of,
    summary_of,
    uid_counts,
)
from tests.helpers.push_runs import name_of, run_push

SCHEDULE = make_schedule(3)
UID = {s.id: uid(CONFERENCE, s) for s in SCHEDULE.sessions}


def remembered(backend: Backend, engine: Engine) -> list[str]:
    """The UIDs the sync state holds for this calendar."""
    return sorted(SyncState(engine, backend.storage.url, scope=CONFERENCE.slug).rows())


def ours(session_id: str) -> bytes:
    """Exactly what the pusher writes for the session."""
    (event,) = desired_events(SCHEDULE, select_sessions(SCHEDULE, [session_id]))
    return event.ics


class TestDeleteMeets412:
    def test_an_edit_made_between_listing_and_delete_is_kept_and_reported(
        self, backend: Backend, engine: Engine
    ) -> None:
        run_push(backend, engine, SCHEDULE, ["s0", "s1"])
        mine = edited(backend.contents()[name_of("s1")], "Talk 1 - bring a laptop")
        backend.cue(owner_put("DELETE", name_of("s1"), mine))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1"
        assert summary.conflicts == [f"{UID['s1']}: changed in the calendar since the last push; not deleted"]
        assert summary_of(backend.contents()[name_of("s1")]) == "Talk 1 - bring a laptop"
        assert remembered(backend, engine) == sorted([UID["s0"], UID["s1"]])

    def test_overwrite_deletes_the_edited_event(self, backend: Backend, engine: Engine) -> None:
        run_push(backend, engine, SCHEDULE, ["s0", "s1"])
        mine = edited(backend.contents()[name_of("s1")], "Talk 1 - bring a laptop")
        backend.cue(owner_put("DELETE", name_of("s1"), mine))

        summary = run_push(backend, engine, SCHEDULE, ["s0"], overwrite=True)

        assert summary.line() == "created 0, updated 0, deleted 1, unchanged 1, conflicts 0"
        assert sorted(backend.contents()) == [name_of("s0")]
        assert remembered(backend, engine) == [UID["s0"]]

    def test_overwrite_leaves_an_event_edited_again_while_deleting(self, backend: Backend, engine: Engine) -> None:
        run_push(backend, engine, SCHEDULE, ["s0", "s1"])
        first = edited(backend.contents()[name_of("s1")], "Talk 1 - first edit")
        second = edited(first, "Talk 1 - second edit")
        backend.cue(owner_put("DELETE", name_of("s1"), first), owner_put("DELETE", name_of("s1"), second))

        summary = run_push(backend, engine, SCHEDULE, ["s0"], overwrite=True)

        assert summary.conflicts == [f"{UID['s1']}: changed in the calendar while pushing; not deleted"]
        assert summary_of(backend.contents()[name_of("s1")]) == "Talk 1 - second edit"

    def test_an_edit_then_a_delete_by_the_owner_counts_as_deleted(self, backend: Backend, engine: Engine) -> None:
        run_push(backend, engine, SCHEDULE, ["s0", "s1"])
        mine = edited(backend.contents()[name_of("s1")], "Talk 1 - bring a laptop")
        backend.cue(owner_put("DELETE", name_of("s1"), mine), owner_delete("GET", name_of("s1")))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert summary.line() == "created 0, updated 0, deleted 1, unchanged 1, conflicts 0"
        assert sorted(backend.contents()) == [name_of("s0")]
        assert remembered(backend, engine) == [UID["s0"]]

    def test_overwrite_of_an_event_the_owner_deleted_in_the_meantime_counts_as_deleted(
        self, backend: Backend, engine: Engine
    ) -> None:
        run_push(backend, engine, SCHEDULE, ["s0", "s1"])
        mine = edited(backend.contents()[name_of("s1")], "Talk 1 - bring a laptop")
        backend.cue(owner_put("DELETE", name_of("s1"), mine), owner_delete("DELETE", name_of("s1")))

        summary = run_push(backend, engine, SCHEDULE, ["s0"], overwrite=True)

        assert summary.line() == "created 0, updated 0, deleted 1, unchanged 1, conflicts 0"
        assert remembered(backend, engine) == [UID["s0"]]

    def test_an_event_the_owner_deleted_that_we_no_longer_want_is_forgotten(
        self, backend: Backend, engine: Engine
    ) -> None:
        run_push(backend, engine, SCHEDULE, ["s0", "s1"])
        backend.owner_delete(name_of("s1"))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 2, conflicts 0"
        assert remembered(backend, engine) == [UID["s0"]]


class TestOverwrite:
    def test_overwrite_restores_an_event_the_owner_deleted_when_the_schedule_changed_it(
        self, backend: Backend, engine: Engine
    ) -> None:
        run_push(backend, engine, SCHEDULE, ["s1"])
        backend.owner_delete(name_of("s1"))
        changed = moved(SCHEDULE, "s1")

        summary = run_push(backend, engine, changed, ["s1"], overwrite=True)
        again = run_push(backend, engine, changed, ["s1"], overwrite=True)

        assert summary.line() == "created 0, updated 1, deleted 0, unchanged 0, conflicts 0"
        assert again.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 0"
        contents = backend.contents()
        assert sorted(contents) == [name_of("s1")]
        assert start_of(contents[name_of("s1")]) == SCHEDULE.sessions[1].start + timedelta(minutes=60)
        assert uid_counts(contents) == {UID["s1"]: 1}

    def test_overwrite_replaces_the_owner_edit_with_the_schedule_version(
        self, backend: Backend, engine: Engine
    ) -> None:
        run_push(backend, engine, SCHEDULE, ["s1"])
        backend.owner_put(name_of("s1"), edited(backend.contents()[name_of("s1")], "Mine"))
        changed = moved(SCHEDULE, "s1")

        summary = run_push(backend, engine, changed, ["s1"], overwrite=True)
        again = run_push(backend, engine, changed, ["s1"])

        assert summary.line() == "created 0, updated 1, deleted 0, unchanged 0, conflicts 0"
        assert again.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 0"
        (event,) = desired_events(changed, select_sessions(changed, ["s1"]))
        contents = backend.contents()
        assert sorted(contents) == [name_of("s1")]
        assert same_event(contents[name_of("s1")], event.ics)  # servers may reformat the body

    def test_an_event_changed_again_while_pushing_keeps_the_calendar_version(
        self, backend: Backend, engine: Engine
    ) -> None:
        run_push(backend, engine, SCHEDULE, ["s1"])
        first = edited(backend.contents()[name_of("s1")], "Talk 1 - first edit")
        backend.owner_put(name_of("s1"), first)
        backend.cue(owner_put("PUT", name_of("s1"), edited(first, "Talk 1 - second edit")))

        summary = run_push(backend, engine, moved(SCHEDULE, "s1"), ["s1"], overwrite=True)

        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 0, conflicts 1"
        assert summary.conflicts == [f"{UID['s1']}: changed in the calendar while pushing; kept the calendar's version"]
        assert summary_of(backend.contents()[name_of("s1")]) == "Talk 1 - second edit"

    def test_an_event_the_owner_deleted_stays_deleted_without_overwrite(self, backend: Backend, engine: Engine) -> None:
        run_push(backend, engine, SCHEDULE, ["s1"])
        backend.owner_delete(name_of("s1"))

        summary = run_push(backend, engine, moved(SCHEDULE, "s1"), ["s1"])

        assert summary.conflicts == [
            f"{UID['s1']}: deleted in the calendar since the last push; kept the calendar's version"
        ]
        assert backend.contents() == {}

    def test_an_event_recreated_by_the_owner_while_restoring_it_keeps_the_owner_version(
        self, backend: Backend, engine: Engine
    ) -> None:
        run_push(backend, engine, SCHEDULE, ["s1"])
        mine = edited(backend.contents()[name_of("s1")], "Talk 1 - mine again")
        backend.owner_delete(name_of("s1"))
        backend.cue(owner_put("PUT", name_of("s1"), mine))

        summary = run_push(backend, engine, moved(SCHEDULE, "s1"), ["s1"], overwrite=True)

        assert summary.conflicts == [f"{UID['s1']}: changed in the calendar while pushing; kept the calendar's version"]
        assert summary_of(backend.contents()[name_of("s1")]) == "Talk 1 - mine again"


class TestCreateAndClaim:
    def test_a_foreign_event_written_at_our_name_before_our_create_is_left_alone(
        self, backend: Backend, engine: Engine
    ) -> None:
        foreign = event_ics("someone-else@example.org", "Not ours", SCHEDULE.sessions[0].start)
        backend.cue(owner_put("PUT", name_of("s0"), foreign))

        summary = run_push(backend, engine, SCHEDULE, ["s0"], overwrite=True)

        assert summary.conflicts == [
            f"{UID['s0']}: {name_of('s0')} already exists in the calendar with other content; left alone"
        ]
        assert summary_of(backend.contents()[name_of("s0")]) == "Not ours"
        assert remembered(backend, engine) == []

    def test_our_event_edited_by_the_owner_before_our_create_is_not_adopted(
        self, backend: Backend, engine: Engine
    ) -> None:
        # Our UID at our name (a crashed run's PUT, then the owner's edit): adopted only if it is
        # exactly what we would write.
        backend.cue(owner_put("PUT", name_of("s0"), edited(ours("s0"), "Talk 0 - mine")))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert summary.conflicts == [
            f"{UID['s0']}: {name_of('s0')} already exists in the calendar with other content; left alone"
        ]
        assert summary_of(backend.contents()[name_of("s0")]) == "Talk 0 - mine"
        assert remembered(backend, engine) == []

    def test_a_name_that_appears_and_vanishes_while_creating_is_left_alone(
        self, backend: Backend, engine: Engine
    ) -> None:
        foreign = event_ics("someone-else@example.org", "Not ours", SCHEDULE.sessions[0].start)
        backend.cue(owner_put("PUT", name_of("s0"), foreign), owner_delete("GET", name_of("s0")))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert summary.conflicts == [f"{UID['s0']}: {name_of('s0')} keeps changing in the calendar; left alone"]
        assert backend.contents() == {}
        assert remembered(backend, engine) == []

    def test_a_claimed_name_the_owner_deletes_before_we_read_it_is_created(
        self, backend: Backend, engine: Engine
    ) -> None:
        backend.owner_put(name_of("s0"), ours("s0"))
        backend.cue(owner_delete("GET", name_of("s0")))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert summary.line() == "created 1, updated 0, deleted 0, unchanged 0, conflicts 0"
        assert uid_counts(backend.contents()) == {UID["s0"]: 1}
        assert remembered(backend, engine) == [UID["s0"]]

    def test_a_claimed_name_that_vanishes_and_reappears_is_left_alone(self, backend: Backend, engine: Engine) -> None:
        foreign = event_ics("someone-else@example.org", "Not ours", SCHEDULE.sessions[0].start)
        backend.owner_put(name_of("s0"), ours("s0"))
        backend.cue(owner_delete("GET", name_of("s0")), owner_put("PUT", name_of("s0"), foreign))

        summary = run_push(backend, engine, SCHEDULE, ["s0"])

        assert summary.conflicts == [f"{UID['s0']}: {name_of('s0')} keeps changing in the calendar; left alone"]
        assert summary_of(backend.contents()[name_of("s0")]) == "Not ours"
