"""Rendered VEVENT bytes, kept so each session is rendered once per revision.

A feed is then a concatenation of cached bytes: a schedule change re-renders only the sessions
whose revision or status changed, and every other VEVENT stays byte-identical. A `fallback`
(a static build's events of its last run) is asked before rendering a session not held.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial

from feeds.model import Conference, Session, Status

Key = tuple[str, int, Status, str | None, int | None]


# (conference, session, base URL, alarm) -> the VEVENT bytes known for them elsewhere, or None.
Fallback = Callable[[Conference, Session, str | None, int | None], bytes | None]


def _key(session: Session, base_url: str | None, alarm: int | None) -> Key:
    return (session.id, session.revision, session.status, base_url, alarm)


class EventCache:
    """Maps (session.id, revision, status, base_url, alarm minutes) to VEVENT bytes; least recently used
    entries are dropped beyond `max_entries`. The stored session and conference are compared
    on a hit, so content changed without a revision bump (a bug upstream, or a hand-made test
    schedule) is re-rendered rather than served stale. Safe to share between threads."""

    # The default bound is a size, not a promise: enough for the events of several large conferences.
    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self.renders = 0  # how many VEVENTs were actually rendered; for tests and metrics
        self._entries: OrderedDict[Key, tuple[Conference, Session, bytes]] = OrderedDict()
        self._lock = threading.Lock()
        self.fallback: Fallback | None = None
        self._keep_known = True  # whether what `fallback` answers is held too (`spill`)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def get(
        self,
        conference: Conference,
        session: Session,
        base_url: str | None,
        render: Callable[[], bytes],
        alarm: int | None = None,
    ) -> bytes:
        """The cached bytes for this session, or `render()`'s result, stored for next time.
        Each `alarm` (feeds.ical.alarm) is its own entry, rendered once like the plain event."""
        key = _key(session, base_url, alarm)
        with self._lock:
            held = self._held(key, conference, session)
        return held if held is not None else self._made(key, conference, session, base_url, render, alarm)

    def events(
        self,
        conference: Conference,
        sessions: Sequence[Session],
        base_url: str | None,
        render: Callable[[Session], bytes],
        alarm: int | None = None,
    ) -> list[bytes]:
        """`get` of each of `sessions`, in order, `render(session)` giving a missing one's bytes:
        those held are looked up under one hold of the lock, as a feed asks for thousands."""
        keys = [_key(session, base_url, alarm) for session in sessions]
        with self._lock:
            held = [self._held(key, conference, session) for key, session in zip(keys, sessions, strict=True)]
        return [
            data
            if data is not None
            else self._made(key, conference, session, base_url, partial(render, session), alarm)
            for key, session, data in zip(keys, sessions, held, strict=True)
        ]

    def _made(
        self,
        key: Key,
        conference: Conference,
        session: Session,
        base_url: str | None,
        render: Callable[[], bytes],
        alarm: int | None,
    ) -> bytes:
        """The bytes of a session not held: the fallback's, or `render()`'s, stored under `key`."""
        known = self.fallback(conference, session, base_url, alarm) if self.fallback is not None else None
        data = render() if known is None else known  # outside the lock: rendering is the slow part
        with self._lock:
            if known is None:
                self.renders += 1
            elif not self._keep_known:
                return data
            self._entries[key] = (conference, session, data)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                # The oldest (LRU) entry.
                self._entries.popitem(last=False)
        return data

    def _held(self, key: Key, conference: Conference, session: Session) -> bytes | None:
        """The bytes held under `key` for this conference and session, made the most recent
        entry; the caller holds the lock."""
        hit = self._entries.get(key)
        # A build passes the very objects it stored: `is` first spares two dataclass compares
        # a hit, and a build has tens of thousands of hits; equal objects still hit.
        if hit is None or not (hit[0] is conference or hit[0] == conference):
            return None
        if not (hit[1] is session or hit[1] == session):
            return None
        self._entries.move_to_end(key)
        return hit[2]

    def spill(self, fallback: Fallback) -> None:
        """Let go of every entry and ask `fallback` first from now on, holding nothing it
        answers: a static build writes its events to its record once the feeds are made and
        reads each back from there for a session's download, instead of holding them all (tens
        of megabytes at 50,000 sessions) to its end."""
        with self._lock:
            self._entries.clear()
            self.fallback = fallback
            self._keep_known = False

    def held(self, conference: Conference, base_url: str | None, alarm: int | None) -> dict[str, tuple[Session, bytes]]:
        """Session id -> (session, bytes) of every entry held for this conference, base URL and alarm."""
        with self._lock:
            entries = list(self._entries.items())
        return {
            key[0]: (session, data)
            for key, (held, session, data) in entries
            if key[3] == base_url and key[4] == alarm and (held is conference or held == conference)
        }
