"""Calendar checks (an attach's probe, a detach's removal of events) on a few threads of their own.

A calendar server that answers slowly, or drips its answer, holds a check's thread until the
check's deadline. On the threads every other route shares (anyio's default pool) a few dozen such
attaches starve the whole server; here they hold at most `workers` threads, and an attach that
finds them all busy is told at once to retry (`PoolBusy`) instead of queueing behind them.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from server.errors import ServerError

T = TypeVar("T")

PROBE_WORKERS = 4


class PoolBusy(ServerError):
    """Every calendar-check thread is in use."""


class ProbePool:
    def __init__(self, workers: int = PROBE_WORKERS) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="calendar-check")
        self._slots = threading.BoundedSemaphore(workers)

    async def run(self, check: Callable[[], T]) -> T:
        """`check()` on a pool thread. The slot is held until the thread is done, even when the
        request that asked is gone, so the threads busy never exceed `workers`."""
        if not self._slots.acquire(blocking=False):
            raise PoolBusy("every calendar check is in use")
        try:
            future = self._executor.submit(check)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        return await asyncio.wrap_future(future)
