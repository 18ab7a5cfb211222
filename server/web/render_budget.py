"""How much of the server's time what one client's queries ask to be made may take.

A feed asked with filters or a reminder (`?track=…&level=…`, `?alarm=15`), or the schedule page
asked with a search or filters (`?q=…`), is made for that query and kept, a few hundred at most
(server.snapshot.published); `alarm=` alone takes 1,441 values and a search any, and at a large
conference each is as long to make as all.ics or the page. So a client asking a new query at
every request would keep the server making them at the cost of every other client. A client's
answers are made one at a time, in a worker thread, and the CPU seconds each took are charged to
its budget: `burst`, earned back at `per_hour`. Once the budget is spent, an answer not made yet
is 429 with Retry-After; one already made is answered whatever the budget. A personal feed with
a reminder (server.web.picks_api) counts as one."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio
import anyio.to_thread
from starlette.requests import Request

from server.errors import ServerError
from server.snapshot.conditional import Representation
from server.web.ratelimit import RENDER_RATE, Rate, TokenBuckets, client_key


class OverBudget(ServerError):
    """The client's budget is spent: answered 429, Retry-After `wait` seconds (server.web.app)."""

    def __init__(self, wait: float) -> None:
        super().__init__("too many searches and filtered feeds made for your address")
        self.wait = wait


@dataclass
class _Turn:
    """One client's feeds are made one after another; `waiting` counts those made or waiting."""

    lock: anyio.Lock = field(default_factory=anyio.Lock)
    waiting: int = 0


class RenderBudget:
    """Per client address (server.web.ratelimit.client_key). Used from the event loop only."""

    def __init__(self, rate: Rate = RENDER_RATE) -> None:
        self._spent = TokenBuckets(rate)
        self._turns: dict[str, _Turn] = {}

    async def make(self, request: Request, make: Callable[[], Representation]) -> Representation:
        """`make()` in a worker thread once the client's earlier ones are made, charged what it
        took; OverBudget when the client's budget is spent."""
        client = client_key(request.client.host if request.client else None)
        turn = self._turns.setdefault(client, _Turn())
        turn.waiting += 1
        try:
            async with turn.lock:
                wait = self._spent.wait(client, time.monotonic())
                if wait is not None:
                    raise OverBudget(wait)
                spent = [0.0]
                try:
                    return await anyio.to_thread.run_sync(_timed, spent, make)
                finally:
                    self._spent.charge(client, time.monotonic(), spent[0])
        finally:
            turn.waiting -= 1
            if not turn.waiting:
                del self._turns[client]

    def __len__(self) -> int:
        """The clients having a feed made or waiting for their turn."""
        return len(self._turns)


def _timed(spent: list[float], make: Callable[[], Representation]) -> Representation:
    """`make()`, its thread's CPU seconds added to `spent[0]`, even when it raises."""
    started = time.thread_time()
    try:
        return make()
    finally:
        spent[0] += time.thread_time() - started
