"""Format readers: one module per format, each registered here.

A reader recognises its own content (never a file name) and turns the documents of one snapshot into
a `SourceBatch` of source-neutral `SessionRecord`s (feeds.sources.records). `confcal ingest` picks the
reader by content; `--format NAME` forces one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from feeds.sources.documents import Document
    from feeds.sources.records import SourceBatch


class Reader(Protocol):
    """What a format module provides (see the module docstring)."""

    name: str  # the --format value, e.g. "sched-page", "frab-xml"
    label: str  # what messages call it, e.g. "Sched page", "frab/pentabarf schedule.xml"

    def recognises(self, document: Document) -> bool:
        """True when the text is this format; cheap, looks at the content only."""
        ...

    def read(self, documents: Sequence[Document], tz: str | None) -> SourceBatch:
        """Every session in `documents` (all recognised as this format). `tz` is the `--tz` zone,
        for sources whose times need one; raises feeds.errors.SourceError subclasses."""
        ...


READERS: list[Reader] = []


def register(reader: Reader) -> Reader:
    """Add a reader; detection asks readers in registration order, most specific first."""
    READERS.append(reader)
    return reader
