"""Pick-set upkeep inside `confcal serve`: remembering which sets were read, and expiring old ones.

Reads of a pick set (its feed, QR code or API document) are noted in memory and written to the
store in one batch every `interval`, together with a purge of expired sets
(server.store.expiry), so serving a feed never waits for a write. A batch that cannot be
written (the store is busy) is kept for the next round. Losing the notes of the last minutes
in a crash costs nothing that matters: a set in use is read again long before it could expire.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

import anyio
import anyio.to_thread

from server.errors import StoreError
from server.store.picks import PickStore

log = logging.getLogger("confcal.serve")

INTERVAL_S = 600.0
# Reads noted between two rounds; beyond this, further reads wait for the next round.
MAX_PENDING = 100_000


class PickUpkeep:
    def __init__(self, store: PickStore, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock
        self._pending: set[str] = set()

    def note_read(self, token: str) -> None:
        if len(self._pending) < MAX_PENDING:
            self._pending.add(token)

    def take_pending(self) -> set[str]:
        batch, self._pending = self._pending, set()
        return batch

    def run_once(self, reads: set[str]) -> int:
        """Write `reads`, then purge what expired by now; how many sets were purged. Runs in a
        worker thread on a batch taken on the event loop, so `note_read` never races it."""
        now = self.clock()
        self.store.touch(reads, now)
        return self.store.purge(now)

    async def watch(self, interval: float = INTERVAL_S) -> None:
        while True:
            await anyio.sleep(interval)
            batch = self.take_pending()
            try:
                purged = await anyio.to_thread.run_sync(self.run_once, batch)
            except StoreError as exc:
                self._pending |= batch  # touch is idempotent: next round writes them again
                log.warning("pick set upkeep postponed: %s", exc)
                continue
            if purged:
                log.info("expired %d pick sets", purged)
