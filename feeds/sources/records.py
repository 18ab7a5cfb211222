"""What every format reader returns: source-neutral session records, warnings and defects.

A reader keeps times as exact instants when its source gives them, or as wall times plus the zone the
source states; resolving wall times is the merge's job (feeds.merge). Every record keeps its source and
line for messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time

from feeds.model import Link


@dataclass(frozen=True)
class SourceWarning:
    """A note about a source, or (in `SourceBatch.defects`) a defect that loses data."""

    source: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.message}"


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
    links: tuple[Link, ...] = ()
    language: str | None = None
    subtitle: str | None = None
    do_not_record: bool = False


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
    # When the source's conference day turns over (frab's `day_change`, pretalx's day start): a
    # session before it belongs to the day before.
    day_change: time | None = None
