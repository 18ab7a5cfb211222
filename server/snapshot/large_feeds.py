"""A large feed's bytes made again from its previous version's, in the time of the chunks that changed.

A feed's body is its header, the VTIMEZONE when an event needs it, its events' bytes in order and
the END line (feeds.ical.render_calendar). The whole conference's feed of 50,000 sessions is 31
MiB: joining it again after one session moved asked the event cache for 50,000 events, the
largest part of serving the new version. A large feed holds its sessions in chunks shared with
the feed it replaces (server.snapshot.persistent.Chunked), so its body is made from the chunks
the previous body holds, taken from that body as they are, and the changed chunks' events
alone; the bytes are render_calendar's (tests/server/app/test_published_patch.py compares them).

`Parts` says where each chunk's events are in a body it was made with; a feed hands its `Parts`
to the feed that replaces it in the next snapshot (`Handover`), which takes them when it is first
rendered and lets go of them then: a successor never rendered holds one previous body at most,
counted as its own bytes in its conference's `Rendered` (server.snapshot.published), which may
let go of it as of any feed's bytes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence, Sized
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Generic, TypeVar

from feeds.ical import EventCache, render_calendar
from feeds.ical.event import render_event
from feeds.ical.timezone import vtimezone_bytes
from feeds.model import Conference, Session
from server.snapshot.conditional import CALENDAR, Representation
from server.snapshot.persistent import Chunked

_END = b"END:VCALENDAR\r\n"
# What render_calendar looks for in an event to add the VTIMEZONE (no event's bytes can make
# it across two events: each begins with BEGIN:VEVENT).
_ZONED = b"\r\nDTSTART;TZID="


@dataclass(frozen=True)
class Span:
    """One chunk's events in a body: bytes `start` to `end`, whether they name the time zone
    and the newest `modified` among its sessions."""

    chunk: tuple[Session, ...]
    start: int
    end: int
    zoned: bool
    newest: datetime | None


@dataclass(frozen=True)
class Parts:
    body: bytes
    spans: dict[int, Span]  # id(chunk): the chunk is held in its Span, so the id stays its own

    def events(self, chunk: tuple[Session, ...]) -> Span | None:
        found = self.spans.get(id(chunk))
        return found if found is not None and found.chunk is chunk else None


class Handover:
    """A feed's `Parts` once it is rendered, for the feed that replaces it; until then (or once
    the feed's bytes are let go) the parts its own predecessor handed over, if any."""

    __slots__ = ("_before", "_lock", "_parts")

    def __init__(self, before: Handover | None = None) -> None:
        self._parts: Parts | None = None
        # A predecessor never rendered passes on what it was given, not itself: no chains.
        self._before: Handover | None = before if before is None or before._parts is not None else before._before
        self._lock = threading.Lock()

    def take_before(self) -> Parts | None:
        """The predecessor's parts, once: the body they name is let go with them, by the
        predecessor too, which is made again from the event cache if it is ever asked for."""
        with self._lock:
            before, self._before = self._before, None
        if before is None:
            return None
        parts, before._parts = before._parts, None
        return parts

    def keep(self, parts: Parts | None) -> None:
        self._parts = parts

    def held(self) -> int:
        """The bytes of the predecessor's body this holds on to until it is rendered."""
        before = self._before
        parts = None if before is None else before._parts
        return 0 if parts is None else len(parts.body)

    def drop(self) -> None:
        """Let go of this feed's parts and of the predecessor's (the feed's bytes are let go)."""
        self._parts = None
        with self._lock:
            self._before = None


def render_large(
    conference: Conference,
    base_url: str | None,
    cache: EventCache,
    title: str,
    members: Chunked[Session],
    handover: Handover,
) -> Representation:
    """The feed of `members` as `_render` makes it (the same bytes and Last-Modified), reusing
    the chunks the predecessor's body holds; its own parts are kept in `handover`."""
    before = handover.take_before()
    old = None if before is None else memoryview(before.body)
    chunks: list[tuple[Sequence[Session], Taken[memoryview]]] = []
    newest: list[datetime | None] = []
    for chunk in members.chunks:
        span = None if before is None else before.events(chunk)
        if span is not None and old is not None:
            chunks.append((chunk, (old[span.start : span.end], span.zoned)))
            newest.append(span.newest)
        else:
            chunks.append((chunk, None))
            newest.append(max((s.modified for s in chunk if s.modified is not None), default=None))
    laid = join_chunks(conference, base_url, cache, title, chunks)
    body, places = b"".join(laid.pieces()), laid.places
    spans = {
        id(chunk): Span(chunk, start, end, zoned, stamp)
        for chunk, (start, end, zoned), stamp in zip(members.chunks, places, newest, strict=True)
    }
    handover.keep(Parts(body, spans))
    stamps = [stamp for stamp in newest if stamp is not None]
    return Representation(body, CALENDAR, max(stamps) if stamps else None)


Piece = TypeVar("Piece", bound=Sized)
# A chunk's events as an earlier body of the feed holds them (its bytes, or where they are), with
# whether they name the zone; None: rendered from the event cache.
Taken = tuple[Piece, bool] | None


@dataclass(frozen=True)
class Laid(Generic[Piece]):
    """A feed's bytes as render_calendar writes them, by part: its head, the VTIMEZONE when an
    event names the zone (else nothing), each chunk's events (as taken, or the cache's bytes of
    each event), END; and where each chunk's events are in those bytes, with whether they name
    the zone."""

    head: bytes
    zone: bytes
    chunks: list[Piece | list[bytes]]
    places: list[tuple[int, int, bool]]
    end: bytes = _END

    def pieces(self) -> list[bytes | Piece]:
        """The bytes in order. The events are the cache's own bytes, not joined per chunk: the
        body is the one copy."""
        pieces: list[bytes | Piece] = [self.head, self.zone]
        for chunk in self.chunks:
            if isinstance(chunk, list):
                pieces += chunk
            else:
                pieces.append(chunk)
        pieces.append(self.end)
        return pieces


def join_chunks(
    conference: Conference,
    base_url: str | None,
    cache: EventCache,
    title: str,
    chunks: Iterable[tuple[Sequence[Session], Taken[Piece]]],
) -> Laid[Piece]:
    """The feed of `chunks`, each chunk's events taken as given or else rendered."""
    made: list[Piece | list[bytes]] = []
    sizes: list[tuple[int, bool]] = []
    for chunk, taken in chunks:
        if taken is not None:
            made.append(taken[0])
            sizes.append((len(taken[0]), taken[1]))
        else:
            rendered = _events_of(conference, base_url, cache, chunk)
            made.append(rendered)
            sizes.append((sum(map(len, rendered)), any(_ZONED in event for event in rendered)))
    head = _calendar_head(conference, base_url, cache, title)
    zone = vtimezone_bytes(conference.timezone) if any(zoned for _, zoned in sizes) else b""
    places = []
    at = len(head) + len(zone)
    for size, zoned in sizes:
        places.append((at, at + size, zoned))
        at += size
    return Laid(head, zone, made, places)


def _calendar_head(conference: Conference, base_url: str | None, cache: EventCache, title: str) -> bytes:
    """What render_calendar writes before a feed's VTIMEZONE and events: an empty calendar's bytes
    without END (the VTIMEZONE comes only with an event that names the zone)."""
    return render_calendar(conference, (), title=title, base_url=base_url, cache=cache)[: -len(_END)]


def _events_of(
    conference: Conference, base_url: str | None, cache: EventCache, chunk: Sequence[Session]
) -> list[bytes]:
    """The events of `chunk` as render_calendar writes them in a feed (no alarm)."""
    return cache.events(conference, chunk, base_url, partial(render_event, conference, base_url=base_url, alarm=None))
