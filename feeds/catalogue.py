"""Which feeds exist and which sessions each holds.

There is a feed for the whole conference and one per track, room, speaker, level, day and
session kind, each named by a readable, stable slug. Any feed also takes filters as query
parameters (`track=`, `room=`, `speaker=`, `level=`, `day=`, `kind=`; repeatable): values of one
parameter widen (OR), different parameters narrow (AND). Slugs are the model's own (Room.slug
etc.), so a session can be matched without the rest of the schedule.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from feeds.errors import FilterError
from feeds.model import Conference, Named, Schedule, Session
from feeds.slug import slugify


class FeedKind(enum.Enum):
    ALL = "all"
    TRACK = "track"
    ROOM = "room"
    SPEAKER = "speaker"
    LEVEL = "level"
    DAY = "day"
    KIND = "kind"


_LABELS = {
    FeedKind.TRACK: "Track",
    FeedKind.ROOM: "Room",
    FeedKind.SPEAKER: "Speaker",
    FeedKind.LEVEL: "Level",
    FeedKind.DAY: "Day",
    FeedKind.KIND: "Kind",
}
FILTER_NAMES = tuple(kind.value for kind in FeedKind if kind is not FeedKind.ALL)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")  # fmt: skip
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip


@dataclass(frozen=True)
class FeedSpec:
    """One feed of the catalogue: `slug` is "" for the whole-conference feed."""

    kind: FeedKind
    slug: str
    name: str
    title: str


def day_slug(session: Session, conference: Conference) -> str:
    """The ISO date the session starts on in the conference zone (a talk across midnight
    belongs to the day it starts)."""
    return session.start.astimezone(ZoneInfo(conference.timezone)).date().isoformat()


def day_name(day: date) -> str:
    """Name a day as "Tuesday 7 April 2026", without depending on the process locale."""
    return f"{_WEEKDAYS[day.weekday()]} {day.day} {_MONTHS[day.month - 1]} {day.year}"


@lru_cache(maxsize=4096)
def kind_slug(kind: str) -> str:
    return slugify(kind)


def kind_name(kind: str) -> str:
    """Display form of a session kind: "lightning talk" -> "Lightning talk"."""
    return kind[:1].upper() + kind[1:]


def _named(value: Named | None) -> list[tuple[str, str]]:
    return [(value.slug, value.name)] if value else []


def facets(
    session: Session, conference: Conference
) -> dict[FeedKind, list[tuple[str, str]]]:
    """(slug, display name) of every feed the session belongs to, by kind."""
    day = day_slug(session, conference)
    return {
        FeedKind.TRACK: _named(session.track),
        FeedKind.ROOM: _named(session.room),
        FeedKind.SPEAKER: [(s.slug, s.name) for s in session.speakers],
        FeedKind.LEVEL: _named(session.level),
        FeedKind.DAY: [(day, day_name(date.fromisoformat(day)))],
        FeedKind.KIND: [(kind_slug(session.kind), kind_name(session.kind))],
    }


def slugs_of(kind: FeedKind, session: Session, conference: Conference) -> list[str]:
    """The slugs of the feeds of one kind that the session belongs to; cheaper than `facets`
    (no names, one kind), for matching every session against a filter."""
    if kind is FeedKind.SPEAKER:
        return [s.slug for s in session.speakers]
    if kind is FeedKind.DAY:
        return [day_slug(session, conference)]
    if kind is FeedKind.KIND:
        return [kind_slug(session.kind)]
    named = {
        FeedKind.TRACK: session.track,
        FeedKind.ROOM: session.room,
        FeedKind.LEVEL: session.level,
    }
    value = named.get(kind)
    return [value.slug] if value else []


def catalogue(schedule: Schedule) -> list[FeedSpec]:
    """The whole-conference feed, then one feed per distinct value of each facet, by kind and
    slug. Two names with one slug (the model keeps slugs unique per name, but two sources can
    disagree on spelling) share a feed named after the alphabetically first."""
    conference = schedule.conference
    names: dict[FeedKind, dict[str, str]] = {kind: {} for kind in _LABELS}
    for session in schedule.sessions:
        for kind, values in facets(session, conference).items():
            for slug, name in values:
                known = names[kind].get(slug)
                names[kind][slug] = name if known is None else min(known, name)
    specs = [FeedSpec(FeedKind.ALL, "", conference.name, conference.name)]
    for kind, by_slug in names.items():
        for slug in sorted(by_slug):
            name = by_slug[slug]
            specs.append(
                FeedSpec(
                    kind, slug, name, f"{conference.name} - {_LABELS[kind]}: {name}"
                )
            )
    return specs


@dataclass(frozen=True)
class FeedQuery:
    """Filters of a feed URL; every value is a slug. An empty tuple means "not filtered"."""

    track: tuple[str, ...] = ()
    room: tuple[str, ...] = ()
    speaker: tuple[str, ...] = ()
    level: tuple[str, ...] = ()
    day: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    # (parameter, slug) pairs that must all hold: the feed's own path, which query parameters
    # may narrow but never widen (see `for_spec`).
    required: tuple[tuple[str, str], ...] = field(default=())

    @classmethod
    def from_params(cls, items: Iterable[tuple[str, str]]) -> FeedQuery:
        """From URL query pairs, e.g. [("room", "master-stage"), ("room", "junior-stage")].
        Values keep their first-seen order, without repeats. Raises FilterError on an unknown
        parameter name, so a typo does not silently return the whole conference."""
        values: dict[str, list[str]] = {name: [] for name in FILTER_NAMES}
        for name, value in items:
            if name not in values:
                raise FilterError(
                    f"unknown filter {name!r}; use one of: {', '.join(FILTER_NAMES)}"
                )
            value = value.strip()
            if value and value not in values[name]:
                values[name].append(value)
        return cls(
            track=tuple(values["track"]),
            room=tuple(values["room"]),
            speaker=tuple(values["speaker"]),
            level=tuple(values["level"]),
            day=tuple(values["day"]),
            kind=tuple(values["kind"]),
        )

    def for_spec(self, spec: FeedSpec) -> FeedQuery:
        """This query applied within the feed `spec`: /room/master-stage?room=junior-stage
        is empty rather than both rooms."""
        if spec.kind is FeedKind.ALL:
            return self
        return replace(self, required=(*self.required, (spec.kind.value, spec.slug)))

    def is_empty(self) -> bool:
        return not self.required and not any(
            getattr(self, name) for name in FILTER_NAMES
        )

    def matches(self, session: Session, conference: Conference) -> bool:
        """OR within one parameter, AND across parameters and required pairs."""
        for name in FILTER_NAMES:
            wanted: tuple[str, ...] = getattr(self, name)
            if wanted and not any(
                v in wanted for v in slugs_of(FeedKind(name), session, conference)
            ):
                return False
        return all(
            slug in slugs_of(FeedKind(name), session, conference)
            for name, slug in self.required
        )


def visible(session: Session, now: datetime, grace: timedelta) -> bool:
    """Confirmed sessions always; cancelled ones while `now - modified <= grace`, so calendar
    clients see the cancellation before the event disappears. A cancelled session that does not
    say when it was withdrawn is kept: dropping it could hide the cancellation entirely."""
    if not session.cancelled or session.modified is None:
        return True
    return now - session.modified <= grace


def select(
    schedule: Schedule,
    query: FeedQuery,
    *,
    now: datetime,
    grace: timedelta = timedelta(days=30),
) -> list[Session]:
    """The sessions of a feed, sorted by start then id. `now` is passed in, not read, so the
    result (and the feed's bytes) depend only on the arguments."""
    conference = schedule.conference
    chosen = [
        s
        for s in schedule.sessions
        if visible(s, now, grace) and query.matches(s, conference)
    ]
    return sorted(chosen, key=lambda s: (s.start, s.id))


def partition(
    schedule: Schedule,
    *,
    now: datetime,
    grace: timedelta = timedelta(days=30),
) -> dict[tuple[FeedKind, str], list[Session]]:
    """The sessions of every catalogue feed at once, keyed (kind, slug) as in `catalogue`
    ((FeedKind.ALL, "") for the whole conference), each sorted like `select`'s result.

    One pass over the schedule instead of one `select` per feed: with thousands of speakers,
    a per-feed scan would cost sessions x feeds."""
    conference = schedule.conference
    ordered = sorted(
        (s for s in schedule.sessions if visible(s, now, grace)),
        key=lambda s: (s.start, s.id),
    )
    groups: dict[tuple[FeedKind, str], list[Session]] = {
        (FeedKind.ALL, ""): list(ordered)
    }
    for session in ordered:
        for kind in _LABELS:
            for slug in dict.fromkeys(slugs_of(kind, session, conference)):
                groups.setdefault((kind, slug), []).append(session)
    return groups


def feed_title(
    conference: Conference,
    spec_or_query: FeedSpec | FeedQuery,
    *,
    schedule: Schedule | None = None,
) -> str:
    """What the feed is, for NAME and X-WR-CALNAME: "PyTorch Conference Europe 2026 - Room:
    Master Stage". For a query, values are named from `schedule` when given, else by slug;
    several values of one filter read "A or B", several filters are joined by ", "."""
    if isinstance(spec_or_query, FeedSpec):
        return spec_or_query.title
    query = spec_or_query
    known = (
        {(spec.kind.value, spec.slug): spec.name for spec in catalogue(schedule)}
        if schedule
        else {}
    )
    groups: dict[str, list[str]] = {
        name: list(getattr(query, name)) for name in FILTER_NAMES
    }
    for name, slug in query.required:
        if slug not in groups[name]:
            groups[name].insert(0, slug)
    parts = [
        f"{_LABELS[FeedKind(name)]}: "
        + " or ".join(known.get((name, slug), slug) for slug in slugs)
        for name, slugs in groups.items()
        if slugs
    ]
    return " - ".join([conference.name, ", ".join(parts)]) if parts else conference.name


__all__ = [
    "FILTER_NAMES",
    "FeedKind",
    "FeedQuery",
    "FeedSpec",
    "catalogue",
    "day_slug",
    "feed_title",
    "partition",
    "select",
]
