"""What starts CalDAV syncs and invitations by e-mail: a calendar attached, an address
confirmed, a pick set changed, a new schedule version.

Each trigger first makes the want durable in the store (server.store.caldav_wanted; an ingest
does it inside its own transaction), then queues a job per calendar as the fast path, so every
affected calendar is updated within seconds with no request from anyone. If queueing fails or
the process dies in between, the jobs' sweep (server.jobs.tasks) queues what is still wanted.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from server.jobs.sync_leases import wanted_generation
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.caldav_wanted import Wanted, wanted
from server.store.invitations import Invitations

if TYPE_CHECKING:
    from server.jobs.tasks import Jobs

log = logging.getLogger("confcal.jobs.caldav")


class SyncTriggers:
    """The triggers of one store; `jobs` None: only note the want (a store without a queue)."""

    def __init__(self, store: Store, jobs: Jobs | None) -> None:
        self.store = store
        self._jobs = jobs
        self._unopened = self._owned = False
        self._opening = threading.Lock()

    @classmethod
    def on_demand(cls, store: Store) -> SyncTriggers:
        """Triggers that open the store's queue when they first have a sync to queue: the queue
        brings Huey, peewee and psycopg, a slow import at a server process's start that one
        serving no attached calendar never needs."""
        triggers = cls(store, None)
        triggers._unopened = triggers._owned = True
        return triggers

    @property
    def jobs(self) -> Jobs | None:
        """The queue's jobs (opened now if `on_demand` and not yet)."""
        if self._unopened:
            with self._opening:  # requests queue syncs from worker threads
                if self._unopened:
                    self._jobs, self._unopened = _open_jobs(self.store), False
        return self._jobs

    def close(self) -> None:
        """Close the queue if these triggers opened it (`on_demand`)."""
        with self._opening:
            if self._owned and self._jobs is not None:
                self._jobs.queue.storage.close()

    def attached(self, target_id: int) -> None:
        """A calendar was attached (the attach wrote its want): sync it now."""
        generation = wanted_generation(self.store.engine, target_id)
        if generation is not None:
            self._queue((Wanted(target_id, generation),))

    def picks_changed(self, token: str) -> None:
        """The pick set `token` was saved with other sessions."""
        engine = self.store.engine
        bumped = CaldavTargets(engine).want_sync(token)
        generations = ((target, wanted_generation(engine, target)) for target in bumped)
        self._queue(tuple(Wanted(target, g) for target, g in generations if g is not None))
        self.invitations_due(token)

    def invitations_due(self, token: str) -> None:
        """The pick set `token`'s invitations may lack something (confirmed, picks saved): send it."""
        if Invitations(self.store.engine).due(token=token):
            jobs = self.jobs
            if jobs is not None:
                jobs.invitations.queue_due(token=token)

    def version_committed(self, conference: str) -> int:
        """A new schedule version of `conference` was committed (its want with it)."""
        queued = self._queue(wanted(self.store.engine, conference=conference))
        if Invitations(self.store.engine).due(conference=conference):
            jobs = self.jobs
            if jobs is not None:
                jobs.invitations.queue_due(conference=conference)
        return queued

    def _queue(self, found: tuple[Wanted, ...]) -> int:
        jobs = self.jobs if found else None
        if jobs is None:
            return 0
        for target in found:
            jobs.queue_sync(target)
        return len(found)


def _open_jobs(store: Store) -> Jobs | None:
    from server.jobs.queue import JobsError
    from server.jobs.runner import jobs_for

    try:
        return jobs_for(store)
    except JobsError as exc:  # a store in memory: the want is still noted in the store
        log.warning("cannot queue CalDAV syncs: %s", exc)
        return None


def queue_after_ingest(store: Store, conference: str) -> int:
    """For `confcal ingest`, which runs no jobs: queue the syncs the ingest made wanted into the
    store's queue, for `confcal serve` or `confcal worker` to run. Opens the queue only when
    there is something to queue, so an ingest into a store without attached calendars leaves
    no queue tables behind."""
    triggers = SyncTriggers.on_demand(store)
    try:
        return triggers.version_committed(conference)
    finally:
        triggers.close()
