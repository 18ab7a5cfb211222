"""Keeps the served snapshot in step with the store, without a restart.

The store's `version()` is cheap, so a background task polls it every couple of seconds and, when
it moved, builds a new `Published` in a worker thread and swaps it in with one assignment;
requests in flight keep the snapshot they started with. The snapshot is also rebuilt now and then
without a change, because dropping cancelled sessions after their grace period depends on the
clock (unchanged feeds keep their bytes either way).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

import anyio
import anyio.to_thread

from feeds.model import Schedule
from server.app.published import Published
from server.errors import ServerError

log = logging.getLogger("confcal.serve")

REBUILD_AFTER = timedelta(hours=1)


class ScheduleStore(Protocol):
    """What the server needs of server.store.Store."""

    def live(self) -> Schedule | None: ...

    def version(self) -> int: ...


class NothingPublished(ServerError):
    """The store holds no schedule yet (answered 503)."""


def utc_now() -> datetime:
    return datetime.now(UTC)


class Live:
    """The current `Published` for a store; `refresh()` is thread-safe and idempotent."""

    def __init__(
        self,
        store: ScheduleStore,
        *,
        base_url: str | None = None,
        seed: Callable[[], None] | None = None,
        clock: Callable[[], datetime] = utc_now,
        rebuild_after: timedelta = REBUILD_AFTER,
    ) -> None:
        self.store = store
        self.base_url = base_url
        self._seed = seed
        self._clock = clock
        self._rebuild_after = rebuild_after
        self._lock = threading.Lock()
        self._published: Published | None = None
        self._version: int | None = None

    @property
    def snapshot(self) -> Published | None:
        """The current snapshot, or None before the first successful refresh."""
        return self._published

    @property
    def current(self) -> Published:
        if self._published is None:
            self.refresh()
        if self._published is None:
            raise NothingPublished("no schedule has been ingested yet")
        return self._published

    def refresh(self) -> bool:
        """Rebuild the snapshot if the store changed (or the snapshot is old); True if swapped."""
        with self._lock:
            version = self.store.version()
            now = self._clock()
            previous = self._published
            fresh = previous is not None and now - previous.now < self._rebuild_after
            if version == self._version and fresh:
                return False
            schedule = self.store.live()
            if schedule is None and self._seed is not None:
                self._seed()
                version, schedule = self.store.version(), self.store.live()
            if schedule is None:
                return False
            self._published = Published(
                schedule, now=now, base_url=self.base_url, previous=previous
            )
            self._version = version
            log.info(
                "published version %s: %d sessions", version, len(schedule.sessions)
            )
            return True

    async def watch(self, interval: float) -> None:
        """Poll forever (until cancelled); a failing poll is logged and retried, never fatal."""
        while True:
            await anyio.sleep(interval)
            try:
                await anyio.to_thread.run_sync(self.refresh)
            except (
                Exception
            ):  # a store hiccup must not stop the server from serving what it has
                log.exception(
                    "refreshing the published schedule failed; keeping the current one"
                )
