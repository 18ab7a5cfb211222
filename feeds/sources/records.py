"""What a source parser extracts from one document, before merging and time resolution.

Times stay as the page wrote them (date, wall times, abbreviation) because only the merge knows the
conference zone they must be checked against. Every record keeps its line number for messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time


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


# ---------------------------------------------------------------------------------------------------
# The source-neutral record: what every format reader returns (issue 9). The Sched-page types above
# are that reader's own intermediate form and move into it.


@dataclass(frozen=True)
class Person:
    """A speaker as a source names them."""

    name: str
    affiliation: str | None = None
    role: str | None = None  # e.g. "Speaker", "Moderator"
    bio: str | None = None


@dataclass(frozen=True)
class SessionRecord:
    """One session as a reader found it, in no format's terms.

    `start`/`end` are either exact instants (timezone-aware) or wall times (naive) in `zone`, the IANA
    zone the source itself states for them; naive times with `zone=None` are in the conference zone
    (`--tz`). Resolving wall times, and refusing a wall time that does not exist, is the merge's job.
    `source_id` is the source's own stable id (pretalx code/guid, frab guid, iCalendar UID, Sched
    event_key/id), matched first by feeds.identity.
    """

    source: str  # the document it came from, for messages
    line: int | None  # where the record starts in that document, when known
    title: str
    start: datetime
    end: datetime
    zone: str | None = None
    source_id: str | None = None
    description: str = ""
    room: str | None = None
    track: str | None = None
    level: str | None = None
    kind: str | None = None
    speakers: tuple[Person, ...] = ()
    url: str | None = None
    cancelled: bool = False
    slides: bool = False


@dataclass(frozen=True)
class SourceBatch:
    """What one reader returns for the documents of one snapshot.

    `defects` lose data (an unreadable time line, a session block cut off): the ingest is refused
    unless forced. `warnings` lose nothing worth stopping for.
    """

    format: str  # the reader's name, e.g. "sched-page", "frab-xml"
    sessions: tuple[SessionRecord, ...] = ()
    conference: str | None = None  # the conference's name, when the source says it
    zone: str | None = None  # the IANA zone the source states for the whole conference
    place: str | None = None  # a place name ("Paris, France") that may name the zone
    url: str | None = None
    warnings: tuple[SourceWarning, ...] = ()
    defects: tuple[SourceWarning, ...] = ()
