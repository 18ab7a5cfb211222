"""The jobs confcal runs, registered on a Huey queue bound to one store.

- `refresh_source(id, generation)`: one refresh of one source (server.jobs.refresh); when it ran, it
  queues the next run at the source's `next_run`, so each source is a chain of delayed jobs kept in
  the queue's tables (durable across restarts).
- `sweep_sources()`: every minute (Huey's periodic tasks), and once when a worker starts, re-queues
  sources whose next run is overdue: the chain was lost (a worker died holding the job) or never
  started. A duplicate job is harmless: only one job can claim a generation of a source.
- `sync_target(id, generation)`: bring one attached calendar up to a generation
  (server.jobs.caldav_sync); it queues itself again for a retry after a backoff, a busy host, or
  a change that came in while it ran.
- `sweep_caldav()`: every minute, re-queues calendars that have wanted a sync for longer than
  OVERDUE_AFTER with no live lease: their job was lost with its worker, or never queued.
- `send_invitations(id)`, `sweep_invitations()`: schedule changes as e-mail invitations
  (server.jobs.invitations).
- `drop_orphan_calendars()`: every ten minutes, forgets the calendars (URL, user name, sealed
  password) of pick sets that expired: the servers purge expired sets (server.web.pick_upkeep),
  and a calendar without its set can never be synced again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from huey import Huey, crontab

from server.jobs.caldav_sync import Again, Push, SyncSettings, run_sync
from server.jobs.invitations import InvitationJobs
from server.jobs.refresh import LEASE, run_refresh
from server.metrics import source_refreshed
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.caldav_wanted import Wanted, wanted
from server.store.sources import Outcome, Source, SourceStore

log = logging.getLogger("confcal.jobs")

# A healthy chain runs within a couple of seconds of `next_run` (Huey's scheduler ticks every
# second); a source later than this has lost its job.
OVERDUE_AFTER = timedelta(seconds=30)


def utc_now() -> datetime:
    return datetime.now(UTC)


class Jobs:
    """The tasks of one store on one queue; `queue_refresh` is how `source add` starts a chain."""

    def __init__(
        self,
        store: Store,
        queue: Huey,
        clock: Callable[[], datetime] = utc_now,
        lease: timedelta = LEASE,
        *,
        push: Push | None = None,
        sync: SyncSettings | None = None,
    ) -> None:
        self.store, self.queue, self._clock = store, queue, clock
        self.lease = lease  # how long a refresh holds its source (`--refresh-lease`)
        self._push = push
        self.sync_settings = sync if sync is not None else SyncSettings()

        @queue.task(name="refresh_source")  # type: ignore[untyped-decorator]
        def refresh_source(source_id: int, generation: int) -> None:
            self._refresh(source_id, generation)

        @queue.periodic_task(crontab(), name="sweep_sources")  # type: ignore[untyped-decorator]
        def sweep_sources() -> None:
            self.sweep()

        @queue.task(name="sync_target")  # type: ignore[untyped-decorator]
        def sync_target(target_id: int, generation: int) -> None:
            self._sync(target_id, generation)

        @queue.periodic_task(crontab(), name="sweep_caldav")  # type: ignore[untyped-decorator]
        def sweep_caldav() -> None:
            self.sweep_syncs()

        @queue.periodic_task(crontab(minute="*/10"), name="drop_orphan_calendars")  # type: ignore[untyped-decorator]
        def drop_orphan_calendars() -> None:
            self.drop_orphans()

        self.invitations = InvitationJobs(store, queue, clock)
        self._refresh_task: Any = refresh_source
        self._sync_task: Any = sync_target

    def queue_refresh(self, source: Source) -> None:
        """Queue the run `source.generation` of `source`, at its `next_run`."""
        if source.next_run <= self._clock():
            self._refresh_task(source.id, source.generation)
        else:
            self._refresh_task.schedule(args=(source.id, source.generation), eta=source.next_run)

    def queue_sync(self, target: Wanted, at: datetime | None = None) -> None:
        """Queue a sync of `target` up to its generation, now or at `at`."""
        if at is None or at <= self._clock():
            self._sync_task(target.target, target.generation)
        else:
            self._sync_task.schedule(args=(target.target, target.generation), eta=at)

    def queue_wanted(self, conference: str | None = None) -> int:
        """Queue a sync of every calendar that wants one (of `conference` only, when given): what
        an ingest does after it committed a new version. Returns how many."""
        found = wanted(self.store.engine, conference=conference)
        for target in found:
            self.queue_sync(target)
        self.invitations.queue_due(conference=conference)
        return len(found)

    def sweep_syncs(self) -> int:
        """Queue a sync of every calendar whose want is overdue; returns how many."""
        now = self._clock()
        found = wanted(self.store.engine, overdue=(now, now - OVERDUE_AFTER))
        for target in found:
            log.info("caldav target %d has waited too long for a sync; queueing it", target.target)
            self.queue_sync(target)
        return len(found)

    def sweep(self) -> int:
        """Queue a run of every overdue source; returns how many."""
        overdue = SourceStore(self.store.engine).overdue(self._clock() - OVERDUE_AFTER)
        for source in overdue:
            log.info("source %d is overdue (due %s); queueing it", source.id, source.next_run.isoformat())
            self.queue_refresh(source)
        return len(overdue)

    def drop_orphans(self) -> int:
        """Forget the calendars of pick sets that no longer exist; returns how many."""
        gone = CaldavTargets(self.store.engine).drop_orphans()
        if gone:
            log.info("forgot %d calendars of expired pick sets", gone)
        return gone

    def _refresh(self, source_id: int, generation: int) -> None:
        done = run_refresh(self.store, source_id, generation, self._clock, self.lease)
        if done is not None and done.result is not None:
            source_refreshed(done.result.value)
        if done is not None:
            self.queue_refresh(done)
            if done.result is Outcome.OK and done.spec.conference is not None:
                self.queue_wanted(done.spec.conference)
            elif done.result is Outcome.OK:
                self.queue_wanted()

    def _sync(self, target_id: int, generation: int) -> None:
        again = run_sync(self.store.engine, target_id, generation, self.push, self.sync_settings, self._clock)
        if isinstance(again, Again):
            self.queue_sync(Wanted(again.target, again.generation), again.at)

    @property
    def push(self) -> Push:
        if self._push is None:
            # The CalDAV client (httpx, the push service) loads with the first sync, not with the
            # jobs: `confcal serve` starts its server processes once the jobs' modules are in.
            from server.jobs.caldav_push import default_push

            settings = self.sync_settings
            self._push = default_push(
                self.store, lease=settings.lease, base_url=settings.base_url, default=settings.default
            )
        return self._push
