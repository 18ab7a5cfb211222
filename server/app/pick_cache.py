"""Pick sets read by the personal feed routes, remembered for a second (issue 12).

A subscribed personal feed is polled like any feed, mostly for a 304; reading its set from the
database in a worker thread cost thirty times the answer itself. Sets read here are kept for
`ttl` seconds (bounded in number), and a set this process creates or replaces is kept as
written, so the API's own writes are read back at once. A replacement made by another server
process (`--workers`) is served within `ttl`, as a new ingest is within the poll interval. A
token that is not found is never kept, so guessing tokens cannot fill the memory.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from server.store.picks import PickSet

TTL_S = 1.0
MAX_SETS = 10_000


class PickCache:
    def __init__(
        self,
        ttl: float = TTL_S,
        max_sets: int = MAX_SETS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_sets = max_sets
        self._clock = clock
        self._sets: OrderedDict[str, tuple[float, PickSet]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token: str) -> PickSet | None:
        """The set kept for `token` if it is younger than `ttl`, else None (read the store)."""
        with self._lock:
            found = self._sets.get(token)
            if found is None:
                return None
            if self._clock() - found[0] > self.ttl:
                del self._sets[token]
                return None
            return found[1]

    def keep(self, pickset: PickSet | None) -> PickSet | None:
        """Remember `pickset` as just read or written; returns it."""
        if pickset is not None:
            with self._lock:
                self._sets[pickset.token] = (self._clock(), pickset)
                self._sets.move_to_end(pickset.token)
                while len(self._sets) > self.max_sets:
                    self._sets.popitem(last=False)
        return pickset
