"""A schedule export in pieces a static build can keep between builds: a head, one
chunk per programme day and a tail, whose join is the whole document byte for byte.

A day's chunk is made only when asked for (`DayChunk.make`), so a build that kept the chunk of
an unchanged day joins the document without rendering that day again. What a chunk is made
from is its `FrabDay`: each event's session, its numeric id and the conference.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from feeds.exports import Exporter
from feeds.exports.frab_layout import FrabDay
from feeds.model import Schedule


@dataclass(frozen=True)
class DayChunk:
    day: FrabDay
    make: Callable[[], bytes]


@dataclass(frozen=True)
class Chunks:
    head: bytes
    days: tuple[DayChunk, ...]
    tail: bytes

    def join(self, day: Callable[[DayChunk], bytes] | None = None) -> bytes:
        """The whole document, each day's chunk from `day` (default: made now)."""
        return b"".join(self.pieces(day))

    def pieces(self, day: Callable[[DayChunk], bytes] | None = None) -> Iterator[bytes]:
        """The document's pieces in order, each day's chunk from `day` (default: made now) when
        its turn comes: a static build writes them one by one without holding the whole."""
        yield self.head
        for chunk in self.days:
            yield chunk.make() if day is None else day(chunk)
        yield self.tail


@runtime_checkable
class ChunkedExporter(Exporter, Protocol):
    def chunks(self, schedule: Schedule, *, now: datetime, base_url: str | None = None) -> Chunks:
        """`render`'s document as head, day chunks and tail (`render` is their join)."""
        ...
