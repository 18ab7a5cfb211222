"""A schedule export in pieces a static build can keep between builds: a head, one
chunk per programme day and a tail, whose join is the whole document byte for byte.

A day's chunk is made only when asked for (`DayChunk.make`), so a build that kept the chunk of
an unchanged day joins the document without rendering that day again. What a chunk is made
from is its `FrabDay`: each event's session, its numeric id and the conference.

An event's text within its day depends on nothing but the event (its session, numeric id and
the conference) and the base URL: never on its neighbours or its place. So a day can also be
made with the events' texts from a keeper (`DayChunk.make_with`), which renders only the events
it does not hold: a build whose day changed by one session renders that session alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeVar, runtime_checkable

from feeds.exports import Exporter
from feeds.exports.frab_layout import FrabDay, FrabEvent
from feeds.model import Schedule

T = TypeVar("T")

# The texts of items, in order: (the items, what renders any of them) -> their texts. A keeper
# answers from what it holds and renders only the others.
Texts = Callable[[Sequence[T], Callable[[Sequence[T]], list[str]]], list[str]]
EventTexts = Texts[FrabEvent]


def rendered(items: Sequence[T], render: Callable[[Sequence[T]], list[str]]) -> list[str]:
    """`Texts` that renders every item."""
    return render(items)


@dataclass(frozen=True)
class DayChunk:
    day: FrabDay
    make_with: Callable[[EventTexts], bytes]  # the chunk, its events' texts from the given keeper

    def make(self) -> bytes:
        """The chunk, every event rendered."""
        return self.make_with(rendered)


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
