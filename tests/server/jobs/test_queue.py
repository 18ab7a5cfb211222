"""The refresh jobs on the real Huey queue in a real store (SQLite and PostgreSQL): queued, taken and
run here step by step (dequeue/execute), and once by the worker threads `confcal serve` runs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import inspect

from feeds.demo import DEMO_TZ
from server.jobs import Jobs, jobs_in_process
from server.jobs.queue import open_queue
from server.jobs.tasks import OVERDUE_AFTER
from server.store import Store
from server.store.sources import Outcome, Source, SourceSpec, SourceStore
from tests.helpers.source_server import PageServer

EVERY = timedelta(minutes=15)


@pytest.fixture
def now() -> datetime:
    """Huey schedules by the real clock, so the jobs' clock must be near it: a next run in the
    past would be queued at once, and run_pending would never end. Taken per test, not at import,
    since a loaded machine can take longer than EVERY to get from collection to these tests."""
    return datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def jobs(store: Store, now: datetime) -> Iterator[Jobs]:
    made = Jobs(store, open_queue(store.engine.url.render_as_string(hide_password=False)), clock=lambda: now)
    yield made
    made.queue.storage.close()


def add(store: Store, urls: list[str], at: datetime) -> Source:
    spec = SourceSpec(urls=tuple(urls), interval=EVERY, tz=DEMO_TZ, allow_private=True)
    return SourceStore(store.engine).add(spec, at)


def run_pending(jobs: Jobs) -> None:
    """What a worker does, here and now. A job for later passes through the queue once: its first
    execution only files it in the schedule."""
    while (task := jobs.queue.dequeue()) is not None:
        jobs.queue.execute(task)


def test_a_run_queues_the_next_one_at_next_run(store: Store, jobs: Jobs, demo_urls: list[str], now: datetime) -> None:
    source = add(store, demo_urls, now)
    jobs.queue_refresh(source)

    run_pending(jobs)

    done = SourceStore(store.engine).get(source.id)
    assert done is not None
    assert (done.result, done.generation) == (Outcome.OK, 1)
    scheduled = jobs.queue.scheduled()
    assert [(task.name, task.args, task.eta) for task in scheduled] == [
        ("refresh_source", (source.id, 1), (now + EVERY).replace(tzinfo=None))
    ]


def test_duplicate_jobs_fetch_once(
    store: Store, jobs: Jobs, pages: PageServer, demo_urls: list[str], now: datetime
) -> None:
    source = add(store, demo_urls, now)
    jobs.queue_refresh(source)
    jobs.queue_refresh(source)  # as a sweep racing a live chain would

    run_pending(jobs)

    assert (pages.count(200), store.version()) == (5, 1)
    assert len(jobs.queue.scheduled()) == 1  # the loser queued nothing: one chain goes on


def test_sweep_requeues_overdue_sources_only(store: Store, jobs: Jobs, demo_urls: list[str], now: datetime) -> None:
    lost = add(store, demo_urls, at=now - OVERDUE_AFTER - timedelta(seconds=1))
    add(store, demo_urls, at=now)  # due just now: its own job is on the way

    queued = jobs.sweep()

    assert queued == 1
    assert [task.args for task in jobs.queue.pending()] == [(lost.id, 0)]


def test_queue_tables_are_prefixed_in_the_store_database(store: Store, jobs: Jobs) -> None:
    names = set(inspect(store.engine).get_table_names())

    assert {name for name in names if name.startswith("job_")} == {"job_task", "job_schedule", "job_kv", "job_counter"}
    assert not names & {"task", "schedule", "kv", "counter"}


def test_worker_threads_run_a_queued_refresh(store: Store, demo_urls: list[str]) -> None:
    # On PostgreSQL too: the worker and scheduler threads close their connections as they stop
    # (an unclosed one fails this test through the warning its garbage collection raises).
    table = SourceStore(store.engine)
    source = table.add(
        SourceSpec(urls=tuple(demo_urls), interval=EVERY, tz=DEMO_TZ, allow_private=True), datetime.now(UTC)
    )

    with jobs_in_process(store) as jobs:
        jobs.queue_refresh(source)
        for _ in range(300):  # bounded wait for the worker thread; not a timing assertion
            done = table.get(source.id)
            if done is not None and done.generation > 0:
                break
            time.sleep(0.1)

    assert done is not None and (done.result, done.generation) == (Outcome.OK, 1)
    assert store.version() == 1
