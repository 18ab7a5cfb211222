"""The jobs confcal runs, registered on a Huey queue bound to one store.

- `refresh_source(id, generation)`: one refresh of one source (server.jobs.refresh); when it ran, it
  queues the next run at the source's `next_run`, so each source is a chain of delayed jobs kept in
  the queue's tables (durable across restarts).
- `sweep_sources()`: every minute (Huey's periodic tasks), and once when a worker starts, re-queues
  sources whose next run is overdue: the chain was lost (a worker died holding the job) or never
  started. A duplicate job is harmless: only one job can claim a generation of a source.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from huey import Huey, crontab

from server.jobs.refresh import LEASE, run_refresh
from server.metrics import source_refreshed
from server.store import Store
from server.store.sources import Source, SourceStore

log = logging.getLogger("confcal.jobs")

# A healthy chain runs within a couple of seconds of `next_run` (Huey's scheduler ticks every
# second); a source later than this has lost its job.
OVERDUE_AFTER = timedelta(seconds=30)


def utc_now() -> datetime:
    return datetime.now(UTC)


class Jobs:
    """The tasks of one store on one queue; `queue_refresh` is how `source add` starts a chain."""

    def __init__(
        self, store: Store, queue: Huey, clock: Callable[[], datetime] = utc_now, lease: timedelta = LEASE
    ) -> None:
        self.store, self.queue, self._clock = store, queue, clock
        self.lease = lease  # how long a refresh holds its source (`--refresh-lease`)

        @queue.task(name="refresh_source")  # type: ignore[untyped-decorator]
        def refresh_source(source_id: int, generation: int) -> None:
            self._refresh(source_id, generation)

        @queue.periodic_task(crontab(), name="sweep_sources")  # type: ignore[untyped-decorator]
        def sweep_sources() -> None:
            self.sweep()

        self._refresh_task: Any = refresh_source
        self._sweep_task: Any = sweep_sources

    def queue_refresh(self, source: Source) -> None:
        """Queue the run `source.generation` of `source`, at its `next_run`."""
        if source.next_run <= self._clock():
            self._refresh_task(source.id, source.generation)
        else:
            self._refresh_task.schedule(args=(source.id, source.generation), eta=source.next_run)

    def queue_sweep(self) -> None:
        self._sweep_task()

    def sweep(self) -> int:
        """Queue a run of every overdue source; returns how many."""
        overdue = SourceStore(self.store.engine).overdue(self._clock() - OVERDUE_AFTER)
        for source in overdue:
            log.info("source %d is overdue (due %s); queueing it", source.id, source.next_run.isoformat())
            self.queue_refresh(source)
        return len(overdue)

    def _refresh(self, source_id: int, generation: int) -> None:
        done = run_refresh(self.store, source_id, generation, self._clock, self.lease)
        if done is not None and done.result is not None:
            source_refreshed(done.result.value)
        if done is not None:
            self.queue_refresh(done)
