"""The frab view of a schedule, shared by the schedule.xml and schedule.json exports: days cut at a
day change, rooms, and for every event the ids conference apps key on.

Apps (EventFahrplan, Giggity, ConfClerk) remember favourites and alarms by an event's `id` or
`guid`, so both are stable across re-ingests: the `guid` is the source's own (a frab or pretalx
guid survives a round trip) or a UUIDv5 of the session's iCalendar UID; the numeric `id` is derived
from the session id, never from its position in the schedule.
"""

from __future__ import annotations

import hashlib
import uuid
import weakref
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from feeds.ical import uid
from feeds.model import Conference, Schedule, Session
from feeds.slug import fold, slugify

# Events before 04:00 belong to the previous day's programme (pretalx's default day start).
DAY_CHANGE = time(4, 0)
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
    index: int
    date: date
    start: datetime
    end: datetime
    rooms: tuple[FrabRoom, ...]


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


def _numbers(sessions: list[Session]) -> dict[str, int]:
    """A stable positive id per session id; a rare hash collision moves to the next free number,
    decided in session-id order so it does not depend on the schedule's order."""
    taken: dict[str, int] = {}
    used: set[int] = set()
    for session_id in sorted({s.id for s in sessions}):
        digest = int.from_bytes(hashlib.sha256(session_id.encode("utf-8")).digest()[:8], "big")
        number = _ID_LOW + digest % (_ID_HIGH - _ID_LOW)
        while number in used:
            number = _ID_LOW if number >= _ID_HIGH else number + 1
        used.add(number)
        taken[session_id] = number
    return taken


def programme_day(start: datetime) -> date:
    """The day whose programme an event belongs to: before DAY_CHANGE it is the previous date's."""
    day = start.date()
    return day - timedelta(days=1) if start.time() < DAY_CHANGE else day


# The last schedule laid out and its layout: schedule.xml and schedule.json of one snapshot are
# made one after the other from the same (immutable) schedule, and a layout of 10,000 sessions
# costs a UUIDv5 per session. Held weakly, so it never keeps an old schedule alive.
_last: tuple[weakref.ref[Schedule], FrabSchedule] | None = None


def layout(schedule: Schedule) -> FrabSchedule:
    """The confirmed sessions by day and room (cancelled ones have no place in these formats)."""
    global _last
    last = _last
    if last is not None and last[0]() is schedule:
        return last[1]
    made = _layout(schedule)
    _last = (weakref.ref(schedule), made)
    return made


def _layout(schedule: Schedule) -> FrabSchedule:
    conference = schedule.conference
    zone = conference.zone
    confirmed = [s for s in schedule.sessions if not s.cancelled]
    numbers = _numbers(confirmed)
    short = acronym(conference)
    no_room = conference.venue or conference.name
    by_day: dict[date, dict[str, list[FrabEvent]]] = {}
    for session in sorted(confirmed, key=lambda s: (s.start, s.end, fold(s.title), s.id)):
        local = session.start.astimezone(zone)
        room = session.room.name if session.room else no_room
        number = numbers[session.id]
        event = FrabEvent(
            session=session,
            number=number,
            guid=session_guid(conference, session),
            slug=f"{short}-{number}-{slugify(session.title)}",
            room=room,
            start=local,
            duration=session.end - session.start,
        )
        by_day.setdefault(programme_day(local), {}).setdefault(room, []).append(event)
    rooms = tuple(
        sorted(
            {e.room for day in by_day.values() for e in (x for r in day.values() for x in r)},
            key=lambda n: (fold(n), n),
        )
    )
    days = tuple(
        FrabDay(
            index=index,
            date=day,
            start=datetime.combine(day, DAY_CHANGE, tzinfo=zone),
            end=datetime.combine(day + timedelta(days=1), DAY_CHANGE, tzinfo=zone) - timedelta(minutes=1),
            rooms=tuple(
                FrabRoom(name, room_guid(conference, name), tuple(by_day[day][name]))
                for name in rooms
                if name in by_day[day]
            ),
        )
        for index, day in enumerate(sorted(by_day), start=1)
    )
    tracks = tuple(sorted({s.track.name for s in confirmed if s.track}, key=lambda n: (fold(n), n)))
    stamps = [s.modified for s in schedule.sessions if s.modified is not None]
    version = max(stamps).strftime("%Y-%m-%d %H:%M") if stamps else "1"
    return FrabSchedule(conference, short, version, days, rooms, tracks)


def clock(moment: datetime) -> str:
    return moment.strftime("%H:%M")


def duration_text(duration: timedelta, *, days: bool) -> str:
    """HH:MM, or D:HH:MM from a day on when `days` (schedule.xml); the JSON schema wants hours."""
    minutes = int(duration.total_seconds()) // 60
    hours, minute = divmod(minutes, 60)
    if days and hours >= 24:
        return f"{hours // 24}:{hours % 24:02d}:{minute:02d}"
    return f"{hours:02d}:{minute:02d}"
