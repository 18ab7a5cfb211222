"""The in-memory twin (server/caldav/memory.py) with the test-only knobs: it also plays the
calendar's owner (`owner_put`, `owner_delete`: writes that bypass preconditions, as another
client would make them) and fails on demand (`fail_next`, `lose_next_responses`, `fault`) to
exercise retries and crash recovery."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from server.caldav.errors import TransientError
from server.caldav.memory import MemoryStorage

_T = TypeVar("_T")


class FaultyTwin(MemoryStorage):
    def __init__(self, url: str = "memory://calendar/") -> None:
        super().__init__(url)
        self._lose_responses = 0
        # Called before every request with the method; may raise to simulate an outage.
        self.fault: Callable[[str], None] | None = None

    # -- the owner's other client ----------------------------------------------------------------

    def owner_put(self, name: str, ics: bytes) -> str:
        """Create or overwrite without preconditions, as the owner's calendar app would."""
        return self._store(name, ics)

    def owner_delete(self, name: str) -> None:
        self.items.pop(name, None)

    # -- failures on demand ----------------------------------------------------------------------

    def fail_next(self, count: int, *, unreachable: bool = True) -> None:
        """Make the next `count` requests fail as a dropped connection (or a 503)."""
        remaining = [count]

        def fault(method: str) -> None:
            if remaining[0] > 0:
                remaining[0] -= 1
                raise TransientError(f"{method}: simulated failure", unreachable=unreachable)  # text for people

        self.fault = fault

    def lose_next_responses(self, count: int) -> None:
        """The next `count` writes take effect but their answer is lost (a crash after commit)."""
        self._lose_responses = count

    def _request(self, method: str) -> None:
        if self.fault is not None:
            self.fault(method)
        super()._request(method)

    def _answer(self, etag: _T) -> _T:
        if self._lose_responses > 0:
            self._lose_responses -= 1
            raise TransientError("connection lost after the write", unreachable=True)  # text for people
        return super()._answer(etag)
