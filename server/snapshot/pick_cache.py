"""Pick sets read by the personal feed routes, kept and re-read in bulk.

A subscribed personal feed is polled like any feed, mostly for a 304; reading its set from the
database in a worker thread cost thirty times the answer itself. Sets read here are kept (bounded
in number), and a set this process creates or replaces is kept as written, so the API's own
writes are read back at once. `watch` asks the store's change log every `interval` which sets
changed (server.store.picks.PickStore.changes_since) and re-reads only those it keeps, in one
query: a set replaced or deleted by another server process (`--workers`) is seen within about a
second, as a new ingest is within the poll interval, and the requests themselves never wait for
the database; re-reading every kept set each second would cost CPU all the time for nothing.
A set is used only while it was confirmed within `ttl` seconds, so without the watch (an app run
without its lifespan) each set is read again at most every `ttl`. A set nobody asked for in `idle` seconds is dropped rather than
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
        # Where the store's change log was at the last refresh, and when that refresh began.
        self._mark: int | None = None
        self._last_started = float("-inf")

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
        """Re-read the kept sets that changed since the last refresh (blocking: run it in a
        worker thread), and confirm the others. Every kept set the first time, or when the
        change log no longer reaches back to the last refresh. A set kept since the last refresh
        began is re-read too, once: it may have been read from the store just before a change
        that refresh saw. A set kept while this one runs (this process's own write) is newer
        than what this refresh reads; it is left as it is, and re-read by the next. A set the
        store no longer has is dropped."""
        started = self._clock()
        changes = store.changes_since(self._mark)
        with self._lock:
            for token in [t for t, kept in self._sets.items() if started - kept.used > self.idle]:
                del self._sets[token]
            changed = changes.tokens
            stale = [
                token
                for token, kept in self._sets.items()
                if changed is None or token in changed or kept.confirmed > self._last_started
            ]
        found = store.get_many(stale) if stale else {}
        with self._lock:
            for token in stale:
                kept = self._sets.get(token)
                if kept is None or kept.confirmed > started:
                    continue
                fresh = found.get(token)
                if fresh is None:
                    del self._sets[token]
                else:
                    kept.pickset = fresh
            for kept in self._sets.values():
                if kept.confirmed <= started:
                    kept.confirmed = started
        self._mark, self._last_started = changes.mark, started

    async def watch(self, store: PickStore, interval: float = INTERVAL_S) -> None:
        """Refresh every `interval` seconds, for the app's lifespan."""
        while True:
            await anyio.sleep(interval)
            try:
                await anyio.to_thread.run_sync(self.refresh, store)
            except StoreBusy:
                pass  # the sets age past `ttl` and are read per request until the store answers
