"""Pick sets read by the personal feed routes, kept and re-read in bulk (issue 12).

A subscribed personal feed is polled like any feed, mostly for a 304; reading its set from the
database in a worker thread cost thirty times the answer itself. Sets read here are kept (bounded
in number), and a set this process creates or replaces is kept as written, so the API's own
writes are read back at once. `watch` re-reads every kept set in one query per `interval`
(server.store.picks.PickStore.get_many): a set replaced or deleted by another server process
(`--workers`) is seen within about a second, as a new ingest is within the poll interval, and
the requests themselves never wait for the database. A set is used only while it was confirmed
within `ttl` seconds, so without the watch (an app run without its lifespan) each set is read
again at most every `ttl`. A set nobody asked for in `idle` seconds is dropped rather than
re-read forever. A token that is not found is never kept, so guessing tokens cannot fill the
memory.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import anyio
import anyio.to_thread

from server.errors import StoreBusy
from server.store.picks import PickSet, PickStore

TTL_S = 2.0
INTERVAL_S = 1.0
IDLE_S = 600.0
MAX_SETS = 10_000


class _Kept:
    __slots__ = ("confirmed", "pickset", "used")

    def __init__(self, confirmed: float, pickset: PickSet) -> None:
        self.confirmed = confirmed
        self.pickset = pickset
        self.used = confirmed


class PickCache:
    def __init__(
        self,
        ttl: float = TTL_S,
        max_sets: int = MAX_SETS,
        clock: Callable[[], float] = time.monotonic,
        idle: float = IDLE_S,
    ) -> None:
        self.ttl = ttl
        self.max_sets = max_sets
        self.idle = idle
        self._clock = clock
        self._sets: OrderedDict[str, _Kept] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token: str) -> PickSet | None:
        """The set kept for `token` if confirmed within `ttl`, else None (read the store)."""
        with self._lock:
            found = self._sets.get(token)
            if found is None:
                return None
            now = self._clock()
            if now - found.confirmed > self.ttl:
                del self._sets[token]
                return None
            found.used = now
            return found.pickset

    def keep(self, pickset: PickSet | None) -> PickSet | None:
        """Remember `pickset` as just read or written; returns it."""
        if pickset is not None:
            with self._lock:
                self._sets[pickset.token] = _Kept(self._clock(), pickset)
                self._sets.move_to_end(pickset.token)
                while len(self._sets) > self.max_sets:
                    self._sets.popitem(last=False)
        return pickset

    def refresh(self, store: PickStore) -> None:
        """Re-read every kept set in one go (blocking: run it in a worker thread). A set kept
        while the query ran (this process's own write) is newer than the query's answer and
        stays as it is; a set the store no longer has is dropped."""
        started = self._clock()
        with self._lock:
            tokens = [t for t, kept in self._sets.items() if started - kept.used <= self.idle]
            for token in [t for t, kept in self._sets.items() if started - kept.used > self.idle]:
                del self._sets[token]
        found = store.get_many(tokens)
        with self._lock:
            for token in tokens:
                kept = self._sets.get(token)
                if kept is None or kept.confirmed > started:
                    continue
                fresh = found.get(token)
                if fresh is None:
                    del self._sets[token]
                else:
                    kept.pickset, kept.confirmed = fresh, started

    async def watch(self, store: PickStore, interval: float = INTERVAL_S) -> None:
        """Refresh every `interval` seconds, for the app's lifespan."""
        while True:
            await anyio.sleep(interval)
            try:
                await anyio.to_thread.run_sync(self.refresh, store)
            except StoreBusy:
                pass  # the sets age past `ttl` and are read per request until the store answers
