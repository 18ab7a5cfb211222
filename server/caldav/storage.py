"""The storage contract the sync core runs against: one calendar collection of iCalendar objects.

Two implementations obey it: `memory.MemoryStorage` (fast, for the planner's tests and the
state machine) and `dav.DavStorage` (the wire: caldav.DAVClient over the outbound guard). Resources are named
by their last path segment ("name"), unquoted; the collection URL is the storage's business.

Every write carries a precondition (RFC 7232 section 3): create uses `If-None-Match: *`,
update and delete use `If-Match: <etag>`. That makes each write safe to repeat: a repeat of
one that already took effect fails its precondition (412) or finds nothing (404) instead of
writing twice, which is what lets the executor retry them (see execute.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# Errors of the contract live in errors.py so the CLI can print them; re-exported for callers.
from server.caldav.errors import (
    ItemNotFound,
    PreconditionFailed,
    TransientError,
    UidConflict,
)

__all__ = [
    "Item",
    "ItemNotFound",
    "PreconditionFailed",
    "Storage",
    "TransientError",
    "UidConflict",
    "name_for",
]


@dataclass(frozen=True)
class Item:
    ics: bytes
    etag: str


class Storage(Protocol):
    url: str

    def list(self) -> dict[str, str]:
        """name -> ETag of every calendar object resource in the collection (no bodies are read)."""
        ...

    def get(self, name: str) -> Item:
        """The resource's body and ETag. Raises ItemNotFound."""
        ...

    def create(self, name: str, ics: bytes) -> str:
        """PUT with If-None-Match: *; returns the new ETag.
        Raises PreconditionFailed if the name is taken, UidConflict if the UID is used elsewhere."""
        ...

    def update(self, name: str, ics: bytes, etag: str) -> str:
        """PUT with If-Match: etag; returns the new ETag. Raises PreconditionFailed, ItemNotFound."""
        ...

    def delete(self, name: str, etag: str) -> None:
        """DELETE with If-Match: etag. Raises PreconditionFailed, ItemNotFound."""
        ...


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")


def name_for(uid: str) -> str:
    """The deterministic resource name for a UID, so a resumed run finds what a crashed one wrote.

    Characters outside [A-Za-z0-9.-] become `_XX` (UTF-8 hex) - a bijection, so two UIDs never
    share a name, and no server has to agree with us on percent-decoding "@" or "/".
    """
    out = []
    for ch in uid:
        if ch in _SAFE:
            out.append(ch)
        else:
            out.extend(f"_{b:02X}" for b in ch.encode("utf-8"))
    return "".join(out) + ".ics"
