"""Which feeds exist and which sessions each holds.

There is a feed for the whole conference and one per track, room, speaker, level, day and
session kind, each named by a readable, stable slug. Slugs are the model's own (Room.slug etc.),
so a session can be placed without the rest of the schedule. Filters on top of a feed live in
feeds/query.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

from feeds.model import Conference, KeyEnum, Named, Schedule, Session, Speaker
from feeds.slug import slugify


class FeedKind(KeyEnum):
    ALL = "all"
    TRACK = "track"
    ROOM = "room"
    SPEAKER = "speaker"
    LEVEL = "level"
    DAY = "day"
    KIND = "kind"


LABELS = {
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
    return conference.day_of(session.start).isoformat()


def day_name(day: date) -> str:
    """Name a day as "Tuesday 7 April 2026", without depending on the process locale."""
    return f"{_WEEKDAYS[day.weekday()]} {day.day} {_MONTHS[day.month - 1]} {day.year}"


@lru_cache(maxsize=4096)
def kind_slug(kind: str) -> str:
    return slugify(kind)


def kind_name(kind: str) -> str:
    """Display form of a session kind: "lightning talk" -> "Lightning talk"."""
    return kind[:1].upper() + kind[1:]


@lru_cache(maxsize=4096)
def _day_entry(day: str) -> tuple[str, str]:
    return day, day_name(date.fromisoformat(day))


def _places(session: Session, conference: Conference, days: dict[datetime, tuple[str, str]]) -> list[_Place]:
    """(kind, slug, display name) of every feed the session belongs to, in `LABELS` order; `days`
    caches a start's day (thousands of sessions share a few hundred starts, and converting to
    the conference zone is the costly part)."""
    places: list[_Place] = []
    if session.track:
        places.append((FeedKind.TRACK, session.track.slug, session.track.name))
    if session.room:
        places.append((FeedKind.ROOM, session.room.slug, session.room.name))
    places += [(FeedKind.SPEAKER, s.slug, s.name) for s in session.speakers]
    if session.level:
        places.append((FeedKind.LEVEL, session.level.slug, session.level.name))
    day = days.get(session.start)
    if day is None:
        day = days[session.start] = _day_entry(day_slug(session, conference))
    places.append((FeedKind.DAY, *day))
    places.append((FeedKind.KIND, kind_slug(session.kind), kind_name(session.kind)))
    return places


_Place = tuple[FeedKind, str, str]


def slugs_of(kind: FeedKind, session: Session, conference: Conference) -> list[str]:
    """The slugs of the feeds of one kind that the session belongs to; cheaper than `facets`
    (no names, one kind), for matching every session against a filter."""
    if kind is FeedKind.SPEAKER:
        return [s.slug for s in session.speakers]
    if kind is FeedKind.DAY:
        return [day_slug(session, conference)]
    if kind is FeedKind.KIND:
        return [kind_slug(session.kind)]
    # Tested by identity, not looked up in a dict: an enum member's hash is a Python call, and
    # every build matches every session against six kinds.
    if kind is FeedKind.TRACK:
        value: Named | None = session.track
    elif kind is FeedKind.ROOM:
        value = session.room
    elif kind is FeedKind.LEVEL:
        value = session.level
    else:
        value = None
    return [value.slug] if value else []


def catalogue(schedule: Schedule) -> list[FeedSpec]:
    """The whole-conference feed, then one feed per distinct value of each facet, by kind and
    slug. Two names with one slug (the model keeps slugs unique per name, but two sources can
    disagree on spelling) share a feed named after the alphabetically first."""
    conference, sessions = schedule.conference, schedule.sessions
    # Each distinct value weighed once, not once per session that has it: sessions read together
    # share their rooms, tracks, levels and speakers (server.store.rows), so a value is told
    # apart by identity first; thousands of sessions share a few hundred starts and kinds.
    starts = {s.start for s in sessions}
    found: dict[FeedKind, Iterable[tuple[str, str]]] = {
        FeedKind.TRACK: _named({id(t): t for s in sessions if (t := s.track) is not None}),
        FeedKind.ROOM: _named({id(r): r for s in sessions if (r := s.room) is not None}),
        FeedKind.SPEAKER: _named({id(p): p for s in sessions for p in s.speakers}),
        FeedKind.LEVEL: _named({id(v): v for s in sessions if (v := s.level) is not None}),
        FeedKind.DAY: [_day_entry(conference.day_of(start).isoformat()) for start in starts],
        FeedKind.KIND: [(kind_slug(kind), kind_name(kind)) for kind in {s.kind for s in sessions}],
    }
    specs = [FeedSpec(FeedKind.ALL, "", conference.name, conference.name)]
    for kind in LABELS:
        by_slug: dict[str, str] = {}
        for slug, name in found[kind]:
            known = by_slug.get(slug)
            by_slug[slug] = name if known is None else min(known, name)
        specs += [spec_of(conference, kind, slug, by_slug[slug]) for slug in sorted(by_slug)]
    return specs


def _named(values: Mapping[int, Named | Speaker]) -> list[tuple[str, str]]:
    return [(value.slug, value.name) for value in values.values()]


def spec_of(conference: Conference, kind: FeedKind, slug: str, name: str) -> FeedSpec:
    """The catalogue's feed of one kind (not ALL) and slug, named `name`."""
    return FeedSpec(kind, slug, name, f"{conference.name} - {LABELS[kind]}: {name}")


def places(session: Session, conference: Conference) -> list[tuple[FeedKind, str, str]]:
    """(kind, slug, name) of every feed besides the whole conference's that `session` belongs
    to (its names as `catalogue` weighs them), for patching a catalogue made before."""
    return _places(session, conference, {})


# How long a cancelled session stays in the feeds (as STATUS:CANCELLED) after it was withdrawn:
# long enough for any calendar client's refresh interval; the one definition everything uses.
CANCELLED_GRACE = timedelta(days=30)


def visible(session: Session, now: datetime, grace: timedelta = CANCELLED_GRACE) -> bool:
    """Confirmed sessions always; cancelled ones while `now - modified <= grace`, so calendar
    clients see the cancellation before the event disappears. A cancelled session that does not
    say when it was withdrawn is kept: dropping it could hide the cancellation entirely."""
    if not session.cancelled or session.modified is None:
        return True
    return now - session.modified <= grace


def visible_until(schedule: Schedule, now: datetime, grace: timedelta = CANCELLED_GRACE) -> datetime | None:
    """The last instant at which every session `visible` at `now` still is: the earliest end of
    a cancelled session's grace period not yet over. None when no visible session will ever
    leave (so what the schedule shows depends on `now` only through `visible`, and is the same
    at any instant from `now` up to this one)."""
    ends = [
        s.modified + grace
        for s in schedule.sessions
        if s.cancelled and s.modified is not None and now - s.modified <= grace
    ]
    return min(ends, default=None)


def partition(
    schedule: Schedule,
    *,
    now: datetime,
    grace: timedelta = CANCELLED_GRACE,
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
    groups: dict[tuple[FeedKind, str], list[Session]] = {(FeedKind.ALL, ""): list(ordered)}
    # Each feed's list found once per distinct value (by identity: sessions read together share
    # their rooms, tracks, levels and speakers; by value for starts and kinds), not a key made
    # and looked up per session and feed.
    lists: dict[object, list[Session]] = {}

    def members(value: object, key: tuple[FeedKind, str]) -> list[Session]:
        found = groups.get(key)
        if found is None:
            found = groups[key] = []
        lists[value] = found
        return found

    for session in ordered:
        for value, kind in (
            (session.track, FeedKind.TRACK),
            (session.room, FeedKind.ROOM),
            (session.level, FeedKind.LEVEL),
        ):
            if value is not None:
                found = lists.get(id(value))
                if found is None:
                    found = members(id(value), (kind, value.slug))
                found.append(session)
        speakers = session.speakers
        if speakers:
            if len(speakers) == 1:
                found = lists.get(id(speakers[0]))
                (found if found is not None else members(id(speakers[0]), (FeedKind.SPEAKER, speakers[0].slug))).append(
                    session
                )
            else:
                # Once per feed, though two of its speakers share a slug; each speaker's list
                # found by identity as a lone speaker's is (a speaker's objects of one slug
                # share the feed's list through `members`).
                slugs: list[str] = []
                for person in speakers:
                    if person.slug in slugs:
                        continue
                    slugs.append(person.slug)
                    found = lists.get(id(person))
                    if found is None:
                        found = members(id(person), (FeedKind.SPEAKER, person.slug))
                    found.append(session)
        start = session.start
        found = lists.get(start)
        if found is None:
            found = members(start, (FeedKind.DAY, day_slug(session, conference)))
        found.append(session)
        found = lists.get(("kind", session.kind))
        if found is None:
            found = members(("kind", session.kind), (FeedKind.KIND, kind_slug(session.kind)))
        found.append(session)
    return groups


__all__ = [
    "FILTER_NAMES",
    "FeedKind",
    "FeedSpec",
    "catalogue",
    "day_slug",
    "partition",
    "places",
    "spec_of",
    "visible",
    "visible_until",
]
