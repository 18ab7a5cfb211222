"""The normalized schedule model every source is parsed into and every output is rendered from.

All instants are timezone-aware datetimes, held in UTC (a naive datetime is rejected at construction);
convert to the conference zone only to show them, because Python compares datetimes of one ZoneInfo by
wall time, ignoring `fold`, which misorders the repeated hour in autumn.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from feeds.errors import ModelError
from feeds.slug import slugify


class KeyEnum(enum.Enum):
    """An enum whose members key maps looked up by the million (a feed by its kind, a rendered
    event by its status): each member is equal only to itself, so its identity is its hash,
    where Enum's own hashes the member's name in Python."""

    __hash__ = object.__hash__


class Status(KeyEnum):
    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Named:
    """A facet value (room, track, level) identified by a stable slug derived from its name."""

    name: str
    slug: str = ""

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ModelError(f"{type(self).__name__} needs a name")
        if not self.slug:
            object.__setattr__(self, "slug", slugify(self.name))


@dataclass(frozen=True)
class Room(Named):
    pass


@dataclass(frozen=True)
class Track(Named):
    pass


@dataclass(frozen=True)
class Level(Named):
    pass


@dataclass(frozen=True)
class Speaker:
    name: str
    slug: str = ""
    role: str | None = None
    affiliation: str | None = None
    bio: str | None = None

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise ModelError("a speaker needs a name")
        if not self.slug:
            object.__setattr__(self, "slug", slugify(self.name))


@dataclass(frozen=True)
class Conference:
    name: str
    timezone: str  # IANA zone name, e.g. "Europe/Paris"
    start_date: date
    end_date: date
    venue: str | None = None
    city: str | None = None
    source_url: str | None = None
    slug: str = ""
    # When one conference day ends and the next begins, in the conference's zone: 39C3's days run
    # to 06:00, so its 00:30 sessions belong to the evening before.
    day_change: time = time()

    def __post_init__(self) -> None:
        if self.end_date < self.start_date:
            raise ModelError(f"conference ends ({self.end_date}) before it starts ({self.start_date})")
        if not self.slug:
            object.__setattr__(self, "slug", slugify(self.name))

    @property
    def zone(self) -> ZoneInfo:
        """The conference's zone: the one place code turns `timezone` into a zone."""
        return ZoneInfo(self.timezone)

    def day_of(self, instant: datetime) -> date:
        """The conference day `instant` belongs to: its local date, the day before when it is
        earlier than `day_change`. The one place day feeds, pages, the changelog and every export
        group by day."""
        return conference_day(instant, self.zone, self.day_change)


def conference_day(instant: datetime, zone: ZoneInfo, day_change: time) -> date:
    """The day `instant` belongs to in a conference in `zone` whose days begin at `day_change`:
    `Conference.day_of`, for the merge, which works out a conference's dates before it makes it."""
    local = instant.astimezone(zone)
    return local.date() - timedelta(days=1) if local.time() < day_change else local.date()


@dataclass(frozen=True)
class Link:
    """A link a source gives a session: `kind` says what it is ("link", "recording", "stream",
    "chat", "slides" or another attachment type), `title` what the source calls it. Only http(s)
    URLs are kept (feeds.web_links)."""

    url: str
    title: str = ""
    kind: str = "link"


# The kinds a frab <links> entry has; any other kind is an attachment's type (slides, paper, ...).
LINK_KINDS = frozenset({"link", "recording", "stream", "chat"})


def is_attachment(link: Link) -> bool:
    """Whether frab/c3voc exports write the link as an <attachment> rather than a <link>."""
    return link.kind not in LINK_KINDS


@dataclass(frozen=True)
class Session:
    """One scheduled item.

    `id` is stable across re-ingests (see feeds.identity); `revision` counts content changes and
    becomes the iCalendar SEQUENCE; `modified` is when the content last changed (DTSTAMP and
    LAST-MODIFIED), or when it was withdrawn for a cancelled session. `source_id` is the source's
    own id for it (a UID, guid, event_key), used to match it on the next ingest; it is never shown.
    """

    id: str
    title: str
    start: datetime
    end: datetime
    kind: str = "talk"
    room: Room | None = None
    track: Track | None = None
    level: Level | None = None
    description: str = ""
    speakers: tuple[Speaker, ...] = ()
    slides: bool = False
    url: str | None = None
    status: Status = Status.CONFIRMED
    revision: int = 0
    modified: datetime | None = None
    source_id: str | None = None
    # What else a source carries: its links (recordings, streams, slides, chat rooms ...), the
    # language(s) spoken, a subtitle, and whether the speakers asked not to be recorded.
    links: tuple[Link, ...] = ()
    language: str | None = None
    subtitle: str | None = None
    do_not_record: bool = False

    def __post_init__(self) -> None:
        for label, value in (("start", self.start), ("end", self.end), ("modified", self.modified)):
            # Held in UTC already (a store's rows, a session replaced): nothing to convert, and a
            # large schedule's pipeline makes every session several times.
            if value is None or value.tzinfo is UTC:
                continue
            if value.utcoffset() is None:
                raise ModelError(f"session {self.id!r}: {label} must be timezone-aware")
            object.__setattr__(self, label, value.astimezone(UTC))
        if self.end < self.start:
            raise ModelError(f"session {self.id!r} ends before it starts")

    @property
    def cancelled(self) -> bool:
        return self.status is Status.CANCELLED


@dataclass(frozen=True)
class Schedule:
    conference: Conference
    sessions: tuple[Session, ...] = field(default=())

    def session(self, session_id: str) -> Session | None:
        return next((s for s in self.sessions if s.id == session_id), None)
