"""The frab view of a schedule, shared by the schedule.xml and schedule.json exports: days cut at a
day change, rooms, and for every event the ids conference apps key on.

Apps (EventFahrplan, Giggity, ConfClerk) remember favourites and alarms by an event's `id` or
`guid`, so both are stable across re-ingests: the `guid` is the source's own (a frab or pretalx
guid survives a round trip) or a UUIDv5 of the session's iCalendar UID; the numeric `id` is derived
from the session id, never from its position in the schedule.

A day is laid out (its rooms, its events' guids and slugs) only when its `rooms` are first read:
a static build that kept the chunk of an unchanged day never lays it out, so what a
day's chunk is made from must be known without its layout. It is the day's `index` and `date`,
its sessions with their numeric ids (`numbered`) and the conference; everything else a chunk
shows is a function of those. Three things cross days, and this is how each is covered:
- a numeric id: a hash of the session id, but a collision moves it to the next free number in
  session-id order over the whole conference, so a session added on another day can move it.
  Each day carries its sessions' numbers (computed for the whole conference, cheap: no UUIDs);
- a day's index, its position among all the programme days (a day with sessions added before it
  moves it). The index is the day's own field; schedule.json's comma before every day but the
  first follows from it;
- the conference-wide room list (sorted by `fold`): a day's rooms are in that order, but it is
  a total order on names, so a day's order follows from its own rooms' names alone. The list
  itself is written only in the head (schedule.json's "rooms"), which is made every time.
The zone (programme days, day start and end), the slug (acronym, guids) and the venue or name
(an event without a room) are the conference's, so a day's inputs name it whole.
"""

from __future__ import annotations

import hashlib
import uuid
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cached_property
from itertools import groupby
from operator import attrgetter

from feeds.ical import uid
from feeds.model import Conference, Schedule, Session, Status
from feeds.slug import fold, slugify

_ID_LOW, _ID_HIGH = 1000, 2**31 - 1  # four digits at least (slugs need them), fits a Java int


@dataclass(frozen=True)
class FrabEvent:
    session: Session
    number: int
    guid: str
    slug: str
    room: str
    start: datetime  # in the conference zone
    duration: timedelta


@dataclass(frozen=True)
class FrabRoom:
    name: str
    guid: str
    events: tuple[FrabEvent, ...]


@dataclass(frozen=True)
class FrabDay:
    index: int  # 1 for the first programme day
    date: date
    start: datetime
    end: datetime
    conference: Conference
    # The day's confirmed sessions with their numeric ids, in the schedule's order: with `index`,
    # `date` and the conference, everything the day's chunk is made from (see the module doc).
    numbered: tuple[tuple[Session, int], ...]

    @cached_property
    def rooms(self) -> tuple[FrabRoom, ...]:
        """The day's rooms in the conference's room order, each with its events by start."""
        conference = self.conference
        short = acronym(conference)
        no_room = conference.venue or conference.name
        zone = conference.zone
        by_room: dict[str, list[FrabEvent]] = {}
        for session, number in sorted(self.numbered, key=lambda n: _order(n[0])):
            room = session.room.name if session.room else no_room
            event = FrabEvent(
                session=session,
                number=number,
                guid=session_guid(conference, session),
                slug=f"{short}-{number}-{slugify(session.title)}",
                room=room,
                start=session.start.astimezone(zone),
                duration=session.end - session.start,
            )
            by_room.setdefault(room, []).append(event)
        return tuple(
            FrabRoom(name, room_guid(conference, name), tuple(by_room[name]))
            for name in sorted(by_room, key=_name_order)
        )

    @property
    def events(self) -> list[FrabEvent]:
        """The day's events in the order its rooms list them (the order both exports write)."""
        return [event for room in self.rooms for event in room.events]


@dataclass(frozen=True)
class FrabSchedule:
    conference: Conference
    acronym: str
    version: str
    days: tuple[FrabDay, ...]
    rooms: tuple[str, ...]
    tracks: tuple[str, ...]

    @property
    def start(self) -> date:
        return min([self.conference.start_date, *(d.date for d in self.days)])

    @property
    def end(self) -> date:
        return max([self.conference.end_date, *(d.date for d in self.days)])


def acronym(conference: Conference) -> str:
    """The conference slug in the narrowest form both schemas accept: [a-z0-9_], four or more."""
    return conference.slug.replace("-", "_").ljust(4, "_")


def session_guid(conference: Conference, session: Session) -> str:
    if session.source_id:
        try:
            return str(uuid.UUID(session.source_id))
        except ValueError:
            pass
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confcal:{uid(conference, session)}"))


def room_guid(conference: Conference, name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confcal:{conference.slug}:room:{name}"))


def id_hashes(ids: Iterable[str], known: Mapping[str, int] | None = None) -> dict[str, int]:
    """Each session id's hash: the numeric id it gets unless a collision moves it. A function of
    the id alone, so `known` (hashes made before, which a static build keeps) holds for any
    schedule; the others are made."""
    sha256, number_of, low, span = hashlib.sha256, int.from_bytes, _ID_LOW, _ID_HIGH - _ID_LOW  # a tight loop
    found = known or {}
    return {
        i: h
        if (h := found.get(i)) is not None
        else low + number_of(sha256(i.encode("utf-8")).digest()[:8], "big") % span
        for i in ids
    }


def _numbers(sessions: list[Session], known: Mapping[str, int] | None) -> dict[str, int]:
    """A stable positive id per session id: its hash, unless a collision moves it (`resolved`)."""
    ids = {s.id for s in sessions}
    # A build passes the hashes of exactly these ids: taken whole, not looked up one by one.
    return resolved(known if known is not None and known.keys() == ids else id_hashes(ids, known))


def resolved(hashed: Mapping[str, int], low: int = _ID_LOW, high: int = _ID_HIGH) -> dict[str, int]:
    """Each id's number: its hash (`low` to `high` - 1), or where a collision moves it, the next
    free number (after `high`, `low`), the ids taking their numbers in id order, so the result
    does not depend on the schedule's order.

    That is linear probing, whose set of numbers taken is the same whatever order the ids come
    in: the order decides only who takes which number in a run of taken numbers from a hash
    drawn twice (an id's probe goes up from its hash and never passes a number left free). So
    only those runs' ids are placed one by one; at 50,000 sessions a collision is about as
    likely as not, and placing every id in order cost more than the rest of the layout."""
    counts = Counter(hashed.values())
    if len(counts) == len(hashed):
        return dict(hashed)  # no collision (the usual case): no number moves
    runs: dict[int, int] = {}  # each hash in a run from a collision: the hash drawn twice
    end = low  # the number after the last run walked
    for drawn in sorted(value for value, count in counts.items() if count > 1):
        if drawn < end:
            continue  # in the run walked last
        # The ids hashed below it, outside the runs walked, sit at their hashes (no probe goes
        # down); those hashed in the numbers its ids fill join the run, and fill more.
        runs[drawn], number, end = drawn, drawn + 1, drawn + counts[drawn]
        while number < end:
            if number in counts:
                runs[number] = drawn
                end += counts[number]
            number += 1
        if end > high + 1:  # the run wraps round to `low`: every id is placed in order
            return _probed(sorted(hashed), hashed, low, high)
    placed = dict(hashed)
    crowded: dict[int, list[str]] = {}
    for session_id, number in hashed.items():
        run = runs.get(number)
        if run is not None:
            crowded.setdefault(run, []).append(session_id)
    for ids in crowded.values():
        placed.update(_probed(sorted(ids), hashed, low, high))
    return placed


def _probed(ids: list[str], hashed: Mapping[str, int], low: int, high: int) -> dict[str, int]:
    """`ids` placed in their order, each at its hash or the next number not yet taken."""
    taken: dict[str, int] = {}
    used: set[int] = set()
    for session_id in ids:
        number = hashed[session_id]
        while number in used:
            number = low if number >= high else number + 1
        used.add(number)
        taken[session_id] = number
    return taken


# The last schedule laid out and its layout: schedule.xml and schedule.json of one snapshot are
# made one after the other from the same (immutable) schedule, and share its days (each day's
# rooms, a UUIDv5 per event, laid out once). Held weakly, so it never keeps an old schedule alive.
_last: tuple[weakref.ref[Schedule], FrabSchedule] | None = None


def layout(schedule: Schedule, hashes: Mapping[str, int] | None = None) -> FrabSchedule:
    """The confirmed sessions by day and room (cancelled ones have no place in these formats);
    `hashes`: `id_hashes` of its sessions' ids made before, if any."""
    global _last
    last = _last
    if last is not None and last[0]() is schedule:
        return last[1]
    made = _layout(schedule, hashes)
    _last = (weakref.ref(schedule), made)
    return made


def confirmed_sessions(schedule: Schedule) -> list[Session]:
    """The sessions not cancelled, in the schedule's order, told by their status: the
    `Session.cancelled` property is a Python call, which each export and a build's layout made
    for every session."""
    cancelled = Status.CANCELLED
    return [s for s in schedule.sessions if s.status is not cancelled]


def _order(session: Session) -> tuple[datetime, datetime, str, str]:
    """Events' order in a room: by start, then end, title and id (so equal times stay put)."""
    return (session.start, session.end, fold(session.title), session.id)


def _name_order(name: str) -> tuple[str, str]:
    """Rooms' and tracks' order: by name as compared, then as written (a total order)."""
    return (fold(name), name)


def _layout(schedule: Schedule, hashes: Mapping[str, int] | None) -> FrabSchedule:
    conference = schedule.conference
    zone = conference.zone
    confirmed = confirmed_sessions(schedule)
    numbers = _numbers(confirmed, hashes)
    no_room = conference.venue or conference.name
    by_day: dict[date, list[tuple[Session, int]]] = {}
    days_of: dict[datetime, date] = {}
    # A programme day per start, not per session: the schedule comes by start (the store's
    # order), and a conference has far fewer starts than sessions (250 for 10,000).
    for start, group in groupby(confirmed, key=attrgetter("start")):
        day = days_of.get(start)
        if day is None:
            day = days_of[start] = conference.day_of(start)
        by_day.setdefault(day, []).extend([(session, numbers[session.id]) for session in group])
    rooms = tuple(sorted({s.room.name if s.room else no_room for s in confirmed}, key=_name_order))
    days = tuple(
        FrabDay(
            index=index,
            date=day,
            start=datetime.combine(day, conference.day_change, tzinfo=zone),
            end=datetime.combine(day + timedelta(days=1), conference.day_change, tzinfo=zone) - timedelta(minutes=1),
            conference=conference,
            numbered=tuple(by_day[day]),
        )
        for index, day in enumerate(sorted(by_day), start=1)
    )
    tracks = tuple(sorted({s.track.name for s in confirmed if s.track}, key=_name_order))
    stamps = [s.modified for s in schedule.sessions if s.modified is not None]
    version = max(stamps).strftime("%Y-%m-%d %H:%M") if stamps else "1"
    return FrabSchedule(conference, acronym(conference), version, days, rooms, tracks)


def clock(moment: datetime) -> str:
    """`moment.strftime("%H:%M")`, without strftime's detour through the C library (every
    event of both exports shows one)."""
    return f"{moment.hour:02}:{moment.minute:02}"


def duration_text(duration: timedelta, *, days: bool) -> str:
    """HH:MM, or D:HH:MM from a day on when `days` (schedule.xml); the JSON schema wants hours."""
    minutes = int(duration.total_seconds()) // 60
    hours, minute = divmod(minutes, 60)
    if days and hours >= 24:
        return f"{hours // 24}:{hours % 24:02d}:{minute:02d}"
    return f"{hours:02d}:{minute:02d}"
