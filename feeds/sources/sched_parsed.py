"""What the Sched page parser (feeds.sources.sched) extracts from one page, before the Sched page
reader (feeds.sources.sched_page) joins pages and turns them into neutral records.

Times stay as the page wrote them (date, wall times, abbreviation) because only the reader knows the
zone they must be checked against. Every item keeps its line number for messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, time

from feeds.sources.records import SourceWarning


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
    defects: tuple[SourceWarning, ...] = field(default=())  # data lost: see SourceBatch.defects
