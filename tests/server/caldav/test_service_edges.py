"""The push service's own promises (server/caldav/service.py) against real Radicale: one sync per
calendar (the lease is taken before any request, under the calendar's key whatever its trailing
slash), the sync state saved under that key and the conference, progress reported per change
with the session's title, the counts of each kind, and the refusals named."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from feeds.ical import EventCache
from server.caldav import service
from server.caldav.dav import calendar_key
from server.caldav.errors import CalendarBusy, PicksOfAnotherConference, ServerUnreachable
from server.caldav.lock import CalendarLease
from server.caldav.plan import Create, uid_of
from server.caldav.retry import NO_WAIT, RetryPolicy
from server.caldav.service import Step
from server.caldav.state import SyncState
from server.caldav.target import PickToken, SessionIds, SyncOptions, Target
from server.crypto import Password
from server.errors import ServerError, StoreError
from server.store import Store
from server.store.picks import PickStore
from server.store.tables import calendar_locks
from tests.helpers.push_helpers import PASSWORD, USER, DavServer, answer, edited, make_schedule, moved, withdrawn
from tests.helpers.push_runs import contents, session_ids
from tests.helpers.silent_server import silent_server

OPTIONS = SyncOptions(retry=NO_WAIT, allow_private=True)
SCHEDULE = make_schedule(3)
SLUG = SCHEDULE.conference.slug


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(str(tmp_path / "store.db")) as opened:
        opened.ingest(SCHEDULE)
        yield opened


def target(url: str, **extra: str) -> Target:
    return Target(url, USER, Password(PASSWORD), **extra)


def ids(store: Store, *numbers: int) -> SessionIds:
    return SessionIds(session_ids(store, *numbers))


def uids(store: Store, *numbers: int) -> list[str]:
    return [f"{i}@{SLUG}.confcal" for i in session_ids(store, *numbers)]


def test_a_calendar_another_sync_holds_is_busy_before_any_request_whatever_its_slash(
    radicale: DavServer, store: Store
) -> None:
    calendar = radicale.new_calendar()
    other = CalendarLease(store.engine, calendar_key(calendar))
    other.try_take()
    before = radicale.counts()

    with pytest.raises(CalendarBusy):
        service.sync(
            store, target(calendar.rstrip("/")), ids(store, 0), options=SyncOptions(retry=NO_WAIT, lock_wait=0)
        )
    after_busy = radicale.counts()
    other.release()
    service.sync(store, target(calendar.rstrip("/")), ids(store, 0), options=OPTIONS)

    assert after_busy == before
    assert other.try_take() is True  # the sync released the lease when it ended


def test_the_state_is_saved_under_the_calendars_key_and_the_conference(radicale: DavServer, store: Store) -> None:
    calendar = radicale.new_calendar()
    with_user = calendar.replace("http://", f"http://{USER}@").rstrip("/")

    service.sync(store, Target(with_user, None, Password(PASSWORD)), ids(store, 0, 2), options=OPTIONS)

    assert sorted(SyncState(store.engine, calendar, scope=SLUG).rows()) == sorted(uids(store, 0, 2))


def test_progress_names_each_change_and_the_counts_are_each_kinds(radicale: DavServer, store: Store) -> None:
    calendar = radicale.new_calendar()
    service.sync(store, target(calendar), ids(store, 0, 1, 2), options=OPTIONS)
    live = store.live()
    assert live is not None
    first, second, _ = session_ids(store, 0, 1, 2)
    store.ingest(withdrawn(moved(live, first), second))
    steps: list[Step] = []

    result = service.sync(store, target(calendar), ids(store, 0, 1, 2), options=OPTIONS, progress=steps.append)

    assert (result.created, result.updated, result.deleted, result.unchanged, result.conflicts) == (0, 1, 1, 1, ())
    assert result.target == calendar
    # One step per change, in the executor's order (deletes first); the unchanged event is not reported.
    assert steps == [
        Step(1, 3, "deleted", f"{second}@{SLUG}.confcal", "Talk number 1"),
        Step(2, 3, "updated", f"{first}@{SLUG}.confcal", "Talk number 0"),
    ]


def test_picks_of_another_conference_are_refused_by_name(radicale: DavServer, store: Store) -> None:
    token = PickStore(store.engine).create(SLUG, session_ids(store, 0)).token

    with pytest.raises(PicksOfAnotherConference) as raised:
        service.sync(store, target(radicale.new_calendar()), PickToken(token), conference="pycon-2026", options=OPTIONS)

    assert str(raised.value) == f"those picks are for {SLUG}, not for pycon-2026"


def test_a_store_without_the_schedule_is_named(radicale: DavServer, store: Store, tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "empty.db")) as empty:
        with pytest.raises(StoreError) as no_schedule:
            service.sync(empty, target(radicale.new_calendar()), ids(store, 0), options=OPTIONS)
    with pytest.raises(StoreError) as no_conference:
        service.sync(store, target(radicale.new_calendar()), ids(store, 0), conference="nope", options=OPTIONS)

    assert str(no_schedule.value) == "the store holds no schedule yet; run `confcal ingest` first"
    assert str(no_conference.value) == "the store holds no conference 'nope'"


def test_remove_logs_its_line_under_the_public_url(
    radicale: DavServer, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    calendar = radicale.new_calendar()
    service.sync(store, target(calendar), ids(store, 0, 1), options=OPTIONS)
    caplog.set_level(logging.INFO, logger="confcal.caldav")
    with_user = calendar.replace("http://", f"http://{USER}@")

    result = service.remove(store, Target(with_user, None, Password(PASSWORD)), conference=SLUG, options=OPTIONS)
    with pytest.raises(CalendarBusy):
        lease = CalendarLease(store.engine, calendar_key(calendar))
        lease.try_take()
        service.remove(store, target(calendar), conference=SLUG, options=SyncOptions(retry=NO_WAIT, lock_wait=0))

    mine = [r.getMessage().split(" duration=")[0] for r in caplog.records if r.name == "confcal.caldav"]
    assert (result.target, result.deleted) == (calendar, 2)
    assert mine == [
        f"caldav remove target={calendar} created=0 updated=0 deleted=2 unchanged=0 conflicts=0",
        f"caldav remove target={calendar} failed error=CalendarBusy",
    ]


def test_a_dropped_sessions_delete_is_reported_without_a_title(radicale: DavServer, store: Store) -> None:
    calendar = radicale.new_calendar()
    service.sync(store, target(calendar), ids(store, 0, 1), options=OPTIONS)
    steps: list[Step] = []

    service.sync(store, target(calendar), ids(store, 0), options=OPTIONS, progress=steps.append)

    # The dropped session is no longer among the wanted ones, so its title is not known: "".
    assert steps == [Step(1, 2, "deleted", uids(store, 1)[0], "")]


def test_the_lease_is_renewed_as_the_sync_makes_progress(radicale: DavServer, store: Store) -> None:
    calendar = radicale.new_calendar()
    held: list[tuple[str | None, datetime]] = []

    def look(step: Step) -> None:
        with store.engine.connect() as conn:
            row = conn.execute(
                select(calendar_locks.c.owner, calendar_locks.c.until).where(
                    calendar_locks.c.calendar_url == calendar_key(calendar)
                )
            ).one()
        held.append((row.owner, row.until))

    # A lease of no length is due for renewal at every step, so each step moves its end on.
    service.sync(
        store,
        target(calendar),
        ids(store, 0, 1, 2),
        options=SyncOptions(retry=NO_WAIT, allow_private=True, lock_ttl=0),
        progress=look,
    )

    owners, untils = {owner for owner, _ in held}, [until for _, until in held]
    assert (len(held), len(owners), None in owners) == (3, 1, False)
    assert untils == sorted(set(untils))  # strictly later at every step


def test_preview_plans_against_the_state_saved_for_that_calendar_and_conference(
    radicale: DavServer, store: Store
) -> None:
    calendar = radicale.new_calendar()
    service.sync(store, target(calendar), ids(store, 0, 1), options=OPTIONS)

    found = service.preview(store, target(calendar.rstrip("/")), ids(store, 0), options=OPTIONS)

    # Both events are known as confcal's own: one kept, the dropped one deleted; none is foreign.
    assert sorted((a.verb, uid_of(a)) for a in found.actions) == sorted(
        [("keep", uids(store, 0)[0]), ("delete", uids(store, 1)[0])]
    )


def test_preview_renders_through_the_given_cache_with_the_base_url(radicale: DavServer, store: Store) -> None:
    cache = EventCache()

    found = service.preview(
        store,
        target(radicale.new_calendar()),
        ids(store, 0),
        options=OPTIONS,
        cache=cache,
        base_url="https://confcal.example.org/",
    )

    (create,) = found.actions
    assert isinstance(create, Create)
    assert cache.renders == 1
    assert b"https://confcal.example.org/" in create.event.ics


def test_preview_names_a_conference_the_store_lacks(radicale: DavServer, store: Store) -> None:
    with pytest.raises(StoreError) as raised:
        service.preview(store, target(radicale.new_calendar()), ids(store, 0), conference="nope", options=OPTIONS)

    assert str(raised.value) == "the store holds no conference 'nope'"


def test_overwrite_lets_remove_delete_an_event_the_owner_edited(radicale: DavServer, store: Store) -> None:
    calendar = radicale.new_calendar()
    service.sync(store, target(calendar), ids(store, 0), options=OPTIONS)
    ((name, ics),) = contents(calendar).items()
    radicale.request("PUT", calendar + name, edited(ics, "Talk 0 - bring a laptop"), {"Content-Type": "text/calendar"})

    kept = service.remove(store, target(calendar), conference=SLUG, options=OPTIONS)
    result = service.remove(
        store, target(calendar), conference=SLUG, options=SyncOptions(retry=NO_WAIT, allow_private=True, overwrite=True)
    )

    assert (len(kept.conflicts), kept.deleted) == (1, 0)
    assert (result.deleted, result.conflicts, contents(calendar)) == (1, (), {})


def test_the_callers_retry_policy_governs_the_writes(store: Store, tmp_path: Path) -> None:
    server = DavServer("radicale", tmp_path / "radicale", busy_puts=1).start()
    try:
        with pytest.raises(ServerError) as raised:
            service.sync(
                store,
                target(server.new_calendar()),
                ids(store, 0),
                options=SyncOptions(retry=RetryPolicy(attempts=1), allow_private=True),
            )
    finally:
        server.stop()

    assert "gave up after 1 attempt" in str(raised.value)


def test_sync_writes_events_linking_to_the_base_url(radicale: DavServer, store: Store) -> None:
    calendar = radicale.new_calendar()

    service.sync(store, target(calendar), ids(store, 0), options=OPTIONS, base_url="https://confcal.example.org/")

    ((_, ics),) = contents(calendar).items()
    assert b"https://confcal.example.org/" in ics


def test_the_duration_is_the_time_the_run_took(radicale: DavServer, store: Store) -> None:
    calendar = radicale.new_calendar()

    before = time.monotonic()
    result = service.sync(store, target(calendar), ids(store, 0), options=OPTIONS)
    after = time.monotonic()

    # Bracketed by the caller's own clock readings, not compared with any speed.
    assert timedelta(0) < result.duration <= timedelta(seconds=after - before)


def test_without_a_shared_cache_renders_are_kept_in_the_process_own(radicale: DavServer, store: Store) -> None:
    service._OWN_CACHE.clear()

    service.sync(store, target(radicale.new_calendar()), ids(store, 0, 1), options=OPTIONS)

    assert len(service._OWN_CACHE) == 2


def test_the_options_timeout_cuts_each_wait_of_a_sync(store: Store) -> None:
    # The calendar server accepts the connection and never answers: the per-wait timeout of the
    # options ends the run, well inside the run's deadline.
    once = SyncOptions(
        retry=RetryPolicy(attempts=1, sleep=lambda _s: None), allow_private=True, timeout=0.3, deadline=8
    )
    with silent_server() as url, pytest.raises(ServerUnreachable) as raised:
        service.sync(store, target(url), ids(store, 0), options=once)

    assert str(raised.value) == f"cannot reach {url}: timed out (gave up after 1 attempts)"


def test_the_options_deadline_bounds_the_whole_run_of_a_sync(store: Store) -> None:
    once = SyncOptions(
        retry=RetryPolicy(attempts=1, sleep=lambda _s: None), allow_private=True, timeout=8, deadline=0.3
    )
    with silent_server() as url, pytest.raises(ServerUnreachable) as raised:
        service.sync(store, target(url), ids(store, 0), options=once)

    assert str(raised.value) == f"cannot reach {url}: took longer than the 0.3 s deadline"


def test_preview_lists_the_calendar_under_the_callers_retry_policy(radicale: DavServer, store: Store) -> None:
    # One attempt asked for: a listing answered 503 once ends the preview, not a retry.
    calendar = radicale.new_calendar()
    radicale.cue([answer("PROPFIND Depth: 1", calendar.rstrip("/").rsplit("/", 1)[-1], 503)])
    once = SyncOptions(retry=RetryPolicy(attempts=1, sleep=lambda _s: None), allow_private=True)

    with pytest.raises(ServerError) as raised:
        service.preview(store, target(calendar), ids(store, 0), options=once)

    assert str(raised.value) == "PROPFIND calendar: server error (HTTP 503) (gave up after 1 attempts)"
