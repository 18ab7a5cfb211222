"""What a source parser extracts from one document, before merging and time resolution.

Times stay as the page wrote them (date, wall times, abbreviation) because only the merge knows the
conference zone they must be checked against. Every record keeps its line number for messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, time


@dataclass(frozen=True)
class SourceWarning:
    source: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class WallSpan:
    """ "Tuesday April 7, 2026 11:00 - 11:10 CEST" as written."""

    day: date
    start: time
    end: time
    abbreviation: str | None
    line: int


@dataclass(frozen=True)
class RawSpeaker:
    name: str
    role: str | None = None
    affiliation: str | None = None
    bio: str | None = None
    from_block: bool = True  # False: known only from the title line


@dataclass(frozen=True)
class RawSession:
    line: int
    span: WallSpan | None
    title: str | None = None
    kind: str | None = None
    title_speakers: tuple[RawSpeaker, ...] = ()
    speakers: tuple[RawSpeaker, ...] = ()
    description: str = ""
    room: str | None = None
    track: str | None = None
    level: str | None = None
    slides: bool | None = None
    url: str | None = None
    extra: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Facet:
    """A list filter a page was cut with ("Type: Training Systems clear filter")."""

    label: str
    value: str
    line: int


@dataclass(frozen=True)
class ParsedPage:
    source: str
    sessions: tuple[RawSession, ...] = ()
    facets: tuple[Facet, ...] = ()
    conference: str | None = None
    place: str | None = None
    zone_label: str | None = None  # the abbreviation the header says times are shown in
    loose_text: bool = False  # content that belongs to a session but cannot be placed
    warnings: tuple[SourceWarning, ...] = field(default=())
