"""Running the jobs: worker threads inside `confcal serve` (the default), or a `confcal worker`
process of its own, on the queue in the store's database."""

from __future__ import annotations

import logging
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from huey.consumer import Consumer, Scheduler, Worker

from server.jobs.caldav_sync import SyncSettings
from server.jobs.queue import open_queue
from server.jobs.refresh import LEASE
from server.jobs.tasks import Jobs
from server.store import Store

log = logging.getLogger("confcal.jobs")

# How long an idle worker may wait before it looks at the queue again; with Huey's 1 s scheduler
# tick, a due job starts within about two seconds.
MAX_IDLE = 1.0
# A stopping server waits this long for refreshes in flight; an unfinished one is left to its
# lease and the sweep.
SHUTDOWN_TIMEOUT = 15.0
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # the ones Huey's consumer takes over


class _ClosingWorker(Worker):  # type: ignore[misc]  # Huey ships no type hints
    """A worker thread that closes its own database connection when it stops. Huey's storage keeps
    one connection per thread (peewee's) and closes only the calling thread's, so each thread must
    close its own: on PostgreSQL a stopped serve's threads would otherwise leave server
    connections behind until garbage collection."""

    def shutdown(self) -> None:
        try:
            super().shutdown()
        finally:
            self.huey.storage.database.close()


class _ClosingScheduler(Scheduler):  # type: ignore[misc]
    """The scheduler thread, closing its connection as the workers do (_ClosingWorker)."""

    def shutdown(self) -> None:
        try:
            super().shutdown()
        finally:
            self.huey.storage.database.close()


class _Consumer(Consumer):  # type: ignore[misc]
    worker_class = _ClosingWorker
    scheduler_class = _ClosingScheduler


def jobs_for(store: Store, lease: timedelta = LEASE, sync: SyncSettings | None = None) -> Jobs:
    return Jobs(store, open_queue(store.engine.url.render_as_string(hide_password=False)), lease=lease, sync=sync)


def _consumer(jobs: Jobs, workers: int) -> Any:
    return _Consumer(
        jobs.queue,
        workers=workers,
        worker_type="thread",
        max_delay=MAX_IDLE,
        shutdown_timeout=SHUTDOWN_TIMEOUT,
        graceful_signal="TERM",  # what systemd and docker stop with; SIGINT stops at once
    )


def _catch_up(jobs: Jobs) -> None:
    """Queue at start what is overdue: work whose job was lost while no worker ran."""
    jobs.sweep_syncs()
    jobs.invitations.sweep()


@contextmanager
def jobs_in_process(
    store: Store,
    workers: int = 4,
    lease: timedelta = LEASE,
    jobs: Jobs | None = None,
    sync: SyncSettings | None = None,
) -> Iterator[Jobs]:
    """Worker threads for the life of the block (on `jobs`' queue, or a new one for `store`).
    Start it from the main thread, before the web server: Huey records signals there, and the
    web server installs its own over them."""
    jobs = jobs if jobs is not None else jobs_for(store, lease, sync)
    consumer = _consumer(jobs, workers)
    handlers = {sig: signal.getsignal(sig) for sig in _SIGNALS}
    _catch_up(jobs)
    consumer.start()
    try:
        yield jobs
    finally:
        consumer.stop(graceful=True)
        jobs.invitations.close()
        jobs.queue.storage.close()
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


def run_worker(store: Store, workers: int, lease: timedelta = LEASE, sync: SyncSettings | None = None) -> None:
    """Work until SIGTERM (finish the jobs in hand, up to SHUTDOWN_TIMEOUT) or SIGINT (stop now)."""
    jobs = jobs_for(store, lease, sync)
    try:
        _catch_up(jobs)
        _consumer(jobs, workers).run()
    finally:
        jobs.invitations.close()
        jobs.queue.storage.close()
