"""In-memory twin of a CalDAV calendar collection, obeying the `Storage` contract exactly.

Used for fast tests of the plan and executor and as the model in the state machine: it holds
only the contract. A write's answer leaves through `_answer`, the point where a real server's
could be lost after the write took effect.
"""

from __future__ import annotations

from collections import Counter
from typing import TypeVar

from server.caldav.content import uids
from server.caldav.errors import (
    ItemNotFound,
    PreconditionFailed,
    UidConflict,
)
from server.caldav.storage import Item

_T = TypeVar("_T")


class MemoryStorage:
    # The URL only names the twin; nothing parses it, so any string does.
    def __init__(self, url: str = "memory://calendar/") -> None:
        self.url = url
        self.items: dict[str, Item] = {}
        self.requests: Counter[str] = Counter()  # method -> count, like the servers' counters
        self._next_etag = 0  # any start will do: ETags need only differ from each other

    # -- the Storage contract ------------------------------------------------------------------

    def list(self) -> dict[str, str]:
        self._request("PROPFIND")
        return {name: item.etag for name, item in self.items.items()}

    def get(self, name: str) -> Item:
        self._request("GET")
        try:
            return self.items[name]
        except KeyError:
            # The messages below are for people: the contract and its callers go by the error type.
            raise ItemNotFound(f"{name}: not found") from None

    def create(self, name: str, ics: bytes) -> str:
        self._request("PUT")
        if name in self.items:
            raise PreconditionFailed(f"{name}: already exists")
        self._check_uid(name, ics)  # `name` is not taken here, so excluding it excludes nothing yet
        return self._answer(self._store(name, ics))

    def update(self, name: str, ics: bytes, etag: str) -> str:
        self._request("PUT")
        self._current(name, etag)
        self._check_uid(name, ics)
        return self._answer(self._store(name, ics))

    def delete(self, name: str, etag: str) -> None:
        self._request("DELETE")
        self._current(name, etag)
        del self.items[name]
        self._answer(None)

    # -- internals ---------------------------------------------------------------------------------

    def _request(self, method: str) -> None:
        self.requests[method] += 1

    def _answer(self, etag: _T) -> _T:
        return etag

    def _current(self, name: str, etag: str) -> Item:
        item = self.items.get(name)
        if item is None:
            raise ItemNotFound(f"{name}: not found")
        if item.etag != etag:
            raise PreconditionFailed(f"{name}: ETag {item.etag} is not {etag}")
        return item

    def _check_uid(self, name: str, ics: bytes) -> None:
        # RFC 4791 section 5.3.2.1: a UID may appear in only one resource of a collection.
        new = uids(ics)
        for other, item in self.items.items():
            if other != name and new & uids(item.ics):
                raise UidConflict(f"{name}: UID already used by {other}")

    def _store(self, name: str, ics: bytes) -> str:
        self._next_etag += 1  # any step that never repeats a value would do (-1 or 2 too)
        etag = f'"m{self._next_etag}"'
        self.items[name] = Item(ics=ics, etag=etag)
        return etag
