"""CalDAV sync jobs on the real Huey queue in a real store (SQLite and PostgreSQL), against real Radicale and
Xandikos behind a real counting proxy: triggers, duplicates, retries, refused credentials, the
per-host limit. Jobs are taken and run here step by step, as a worker would."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from icalendar import Calendar
from sqlalchemy import inspect

from feeds.catalogue import FeedKind
from server.caldav.retry import RetryPolicy
from server.crypto import new_key
from server.jobs import Jobs, jobs_in_process
from server.jobs.caldav_push import default_push
from server.jobs.caldav_sync import Again, SyncSettings, run_sync
from server.jobs.queue import open_queue
from server.jobs.triggers import SyncTriggers
from server.links import calendar_base
from server.snapshot.published import Published
from server.store import Store
from server.store.caldav_targets import TargetState
from server.store.picks import PickStore
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.push_helpers import DavServer, moved
from tests.helpers.sync_helpers import SCHEDULE, SLUG, attach, bodies, calendar, stored_ids, summaries, target, wait_for

# No sleeping inside a sync: the job-level backoff is what these tests look at.
FAST = RetryPolicy(attempts=3, sleep=lambda _seconds: None)


@pytest.fixture
def synced_store(store: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setenv("CONFCAL_CALDAV_ALLOW_PRIVATE", "1")  # the servers are on loopback
    monkeypatch.setenv("CONFCAL_SECRET_KEY", new_key())  # a PostgreSQL store has no key file beside it
    store.ingest(SCHEDULE)
    return store


@pytest.fixture
def jobs(synced_store: Store) -> Iterator[Jobs]:
    url = synced_store.engine.url.render_as_string(hide_password=False)
    made = Jobs(synced_store, open_queue(url), push=default_push(synced_store, FAST), sync=SyncSettings())
    yield made
    made.queue.storage.close()


def run_pending(jobs: Jobs) -> None:
    while (task := jobs.queue.dequeue()) is not None:
        jobs.queue.execute(task)


def test_attaching_puts_the_picked_sessions_into_the_calendar(
    synced_store: Store, jobs: Jobs, dav_server: DavServer, proxy: DavProxy
) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0", "s1"])

    SyncTriggers(synced_store, jobs).attached(attached.target.id)
    run_pending(jobs)

    assert summaries(attached.url) == ["Talk number 0", "Talk number 1"]
    done = target(synced_store, attached.target.id)
    assert (done.synced_generation, done.last_result, done.counts and done.counts.created) == (1, "ok", 2)


def test_a_reingest_that_moves_a_session_moves_it_in_the_calendar(
    synced_store: Store, jobs: Jobs, dav_server: DavServer, proxy: DavProxy
) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0", "s1"])
    SyncTriggers(synced_store, jobs).attached(attached.target.id)
    run_pending(jobs)
    before = {summary: start for summary, start in calendar(attached.url).values()}

    synced_store.ingest(moved(SCHEDULE, "s0", minutes=60))
    SyncTriggers(synced_store, jobs).version_committed(SLUG)
    run_pending(jobs)

    after = {summary: start for summary, start in calendar(attached.url).values()}
    assert after["Talk number 0"] - before["Talk number 0"] == timedelta(minutes=60)
    assert after["Talk number 1"] == before["Talk number 1"]
    assert sorted(proxy.writes().values()) == [1, 2]  # s1 written once; s0 created, then updated


def test_a_version_that_changes_no_picked_session_does_not_sync_that_calendar(
    synced_store: Store, jobs: Jobs, dav_server: DavServer, proxy: DavProxy
) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0"])
    SyncTriggers(synced_store, jobs).attached(attached.target.id)
    run_pending(jobs)

    synced_store.ingest(moved(SCHEDULE, "s3"))
    queued = SyncTriggers(synced_store, jobs).version_committed(SLUG)
    run_pending(jobs)

    after = target(synced_store, attached.target.id)
    assert queued == 0
    assert sum(proxy.writes().values()) == 1
    assert (after.wanted_generation, after.synced_generation) == (1, 1)
    assert after.counts is not None and (after.counts.created, after.counts.unchanged) == (1, 0)


def test_changing_the_picks_changes_the_calendar(
    synced_store: Store, jobs: Jobs, dav_server: DavServer, proxy: DavProxy
) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0", "s1"])
    SyncTriggers(synced_store, jobs).attached(attached.target.id)
    run_pending(jobs)

    PickStore(synced_store.engine).replace(attached.token, stored_ids(synced_store, ["s1", "s2"]))
    SyncTriggers(synced_store, jobs).picks_changed(attached.token)
    run_pending(jobs)

    assert summaries(attached.url) == ["Talk number 1", "Talk number 2"]


def test_duplicate_jobs_write_once(synced_store: Store, jobs: Jobs, dav_server: DavServer, proxy: DavProxy) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0", "s1"])
    triggers = SyncTriggers(synced_store, jobs)
    for _ in range(3):  # an attach, a sweep and a redelivered job, say
        triggers.attached(attached.target.id)

    run_pending(jobs)

    assert sorted(proxy.writes().values()) == [1, 1]
    assert jobs.queue.scheduled() == []


@pytest.mark.parametrize(
    ("default", "page"),
    [(None, "https://cal.example.org/"), ("another-conference", f"https://cal.example.org/c/{SLUG}/")],
)
def test_a_pushed_event_links_where_the_servers_feeds_link_it(
    synced_store: Store, dav_server: DavServer, proxy: DavProxy, default: str | None, page: str
) -> None:
    # Arrange: the jobs of servers run with --base-url (and --default), as serve and worker pass it
    url = synced_store.engine.url.render_as_string(hide_password=False)
    settings = SyncSettings(base_url="https://cal.example.org", default=default)
    jobs = Jobs(synced_store, open_queue(url), sync=settings)
    attached = attach(synced_store, dav_server, proxy, ["s0", "s1"])
    live = synced_store.live(SLUG)
    assert live is not None
    # As a server publishes it: without --default, the conference ingested first is the default
    served = calendar_base(settings.base_url, SLUG, default or synced_store.default_conference())
    feed = Published(live, now=datetime.now(UTC), base_url=served)
    all_feed = feed.feed(FeedKind.ALL.value, "")
    assert all_feed is not None
    subscribed = {str(e["UID"]): str(e["URL"]) for e in Calendar.from_ical(all_feed.representation.body).walk("VEVENT")}

    # Act
    SyncTriggers(synced_store, jobs).attached(attached.target.id)
    run_pending(jobs)
    jobs.queue.storage.close()

    # Assert: each pushed event links to its card on the page the feed links it to
    pushed = {}
    for ics in bodies(attached.url).values():
        (event,) = Calendar.from_ical(ics).walk("VEVENT")
        pushed[str(event["UID"])] = str(event["URL"])
    assert pushed == {uid: subscribed[uid] for uid in pushed}
    assert len(pushed) == 2
    assert all(link.startswith(page + "#") for link in pushed.values())


def test_5xx_and_429_are_retried_after_a_backoff_then_the_sync_succeeds(
    synced_store: Store, dav_server: DavServer, proxy: DavProxy
) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0", "s1"])
    proxy.fail_puts([503, 503])
    proxy.fail_puts([429], retry_after="120")  # the last answer before the sync gives up
    now = datetime.now(UTC)
    push, settings = default_push(synced_store, FAST), SyncSettings()

    first = run_sync(synced_store.engine, attached.target.id, 1, push, settings, lambda: now)
    failed = target(synced_store, attached.target.id)
    assert isinstance(first, Again)
    second = run_sync(synced_store.engine, attached.target.id, 1, push, settings, lambda: first.at)

    assert first.at - now >= timedelta(seconds=120)  # Retry-After honoured
    assert (failed.attempts, failed.synced_generation, (failed.last_error or "").split(":")[0]) == (
        1,
        0,
        "ServerFailed",
    )
    assert second is None
    assert summaries(attached.url) == ["Talk number 0", "Talk number 1"]
    assert sorted(proxy.writes().values()) == [1, 1]
    done = target(synced_store, attached.target.id)
    assert (done.attempts, done.synced_generation, done.last_error) == (0, 1, None)


def test_refused_credentials_stop_the_retries_and_set_the_state(
    synced_store: Store, jobs: Jobs, dav_server: DavServer, proxy: DavProxy
) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0"], password="not-the-password")
    triggers = SyncTriggers(synced_store, jobs)
    triggers.attached(attached.target.id)
    run_pending(jobs)

    PickStore(synced_store.engine).replace(attached.token, stored_ids(synced_store, ["s1"]))
    triggers.picks_changed(attached.token)  # a later change does not retry either
    run_pending(jobs)

    done = target(synced_store, attached.target.id)
    assert done.state is TargetState.NEEDS_CREDENTIALS
    assert (done.last_error or "").startswith("AuthenticationFailed: ")
    assert "not-the-password" not in (done.last_error or "")
    assert jobs.queue.scheduled() == []
    assert proxy.writes() == {}


def test_a_missing_calendar_is_recorded_and_not_retried(
    synced_store: Store, jobs: Jobs, dav_server: DavServer, proxy: DavProxy
) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0"])
    dav_server.request("DELETE", attached.url)

    SyncTriggers(synced_store, jobs).attached(attached.target.id)
    run_pending(jobs)

    done = target(synced_store, attached.target.id)
    assert (done.state, done.synced_generation, (done.last_error or "").split(":")[0]) == (
        TargetState.ACTIVE,
        1,
        "CalendarNotFound",
    )
    assert jobs.queue.scheduled() == []


def test_worker_threads_keep_to_the_per_host_limit(synced_store: Store, dav_server: DavServer, proxy: DavProxy) -> None:
    # SQLite and PostgreSQL: the worker threads close their connections as they stop
    # (server.jobs.runner), so nothing is left open for garbage collection to warn about.
    calendars = [attach(synced_store, dav_server, proxy, ["s0", "s1", "s2"]) for _ in range(6)]
    jobs = Jobs(
        synced_store,
        open_queue(synced_store.engine.url.render_as_string(hide_password=False)),
        push=default_push(synced_store, FAST),
        sync=SyncSettings(per_host=2, host_wait=timedelta(milliseconds=200)),
    )

    # Two requests meet at the server before either goes on, so the limit is reached on a slow
    # machine too, and a third one held beside them would show if the limit let it through.
    proxy.hold_until(2, timeout=1.0)

    with jobs_in_process(synced_store, workers=4, jobs=jobs):
        SyncTriggers(synced_store, jobs).version_committed(SLUG)
        finished = wait_for(lambda: all(target(synced_store, c.target.id).synced_generation == 1 for c in calendars))

    assert finished
    assert proxy.max_in_flight == 2
    assert sorted(set(proxy.writes().values())) == [1]
    assert len(proxy.writes()) == 18


def test_on_demand_triggers_open_no_queue_while_no_calendar_wants_a_sync(synced_store: Store) -> None:
    triggers = SyncTriggers.on_demand(synced_store)

    queued = triggers.version_committed(SLUG)
    triggers.close()

    assert queued == 0
    assert {name for name in inspect(synced_store.engine).get_table_names() if name.startswith("job_")} == set()


def test_on_demand_triggers_open_the_queue_for_the_first_sync_wanted(
    synced_store: Store, dav_server: DavServer, proxy: DavProxy
) -> None:
    attached = attach(synced_store, dav_server, proxy, ["s0"])
    triggers = SyncTriggers.on_demand(synced_store)

    triggers.attached(attached.target.id)
    jobs = triggers.jobs
    try:
        pending = [task.args for task in jobs.queue.pending()] if jobs is not None else None
    finally:
        triggers.close()

    assert pending == [(attached.target.id, 1)]
