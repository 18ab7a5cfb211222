"""What the schedule page shows of a session (a `Card`) and where it sits in a day's timetable.

Pure functions of the model: times are converted from the session's UTC instants to the
conference zone here, on the server, so the page reads right without JavaScript; the UTC instants
go into data attributes for the script that adds the viewer's own zone.

The timetable is a CSS grid, one column per room and one row per 5-minute slot of the day; a
card spans the rows of its duration. Slots are counted in elapsed time from the first start, not
wall time, so a day across a DST change still places every card in order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import groupby
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo

from feeds.catalogue import day_name, day_slug, kind_name
from feeds.model import Conference, Session
from server.app.links import Site
from server.app import urls

SLOT = timedelta(minutes=5)
NO_ROOM = "No room given"
GOOGLE_EVENT = "https://calendar.google.com/calendar/render"
# Google's event template is a GET link; keep the URL well inside what browsers and Google accept.
_DETAILS_MAX = 300


@dataclass(frozen=True)
class Card:
    session: Session
    day: str  # ISO date in the conference zone, as the day feeds name it
    start_label: str  # "11:00" in the conference zone
    end_label: str
    zone_label: str  # "CEST": the zone's abbreviation at the start
    start_local: str  # ISO 8601 with offset, for <time datetime>
    end_local: str
    start_utc: str  # ISO 8601 in UTC ("Z"), for the script
    end_utc: str
    kind: str
    paragraphs: tuple[str, ...]
    ics: str
    google: str | None  # None for a cancelled session: there is nothing to add
    column: int = 1
    row_start: int = 1
    row_end: int = 2

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def room_slug(self) -> str:
        return self.session.room.slug if self.session.room else ""

    @property
    def speaker_slugs(self) -> str:
        return " ".join(s.slug for s in self.session.speakers)


@dataclass(frozen=True)
class Day:
    slug: str
    name: str
    rooms: tuple[str, ...]  # column headings, in column order
    # In time order, so the list view (and a screen reader) reads the day in order.
    cards: tuple[Card, ...]


def utc_iso(moment: datetime) -> str:
    return moment.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")


def google_event_link(conference: Conference, session: Session) -> str:
    """Google Calendar's "add this event" template link (a documented GET form, no API key)."""
    stamp = "%Y%m%dT%H%M%SZ"
    dates = f"{session.start.strftime(stamp)}/{session.end.strftime(stamp)}"
    details = session.description
    if len(details) > _DETAILS_MAX:
        details = details[: _DETAILS_MAX - 1].rstrip() + "…"
    where = ", ".join(
        p for p in (session.room.name if session.room else None, conference.city) if p
    )
    query = {
        "action": "TEMPLATE",
        "text": session.title,
        "dates": dates,
        "details": details,
        "location": where,
        "ctz": conference.timezone,
    }
    return f"{GOOGLE_EVENT}?{urlencode(query, quote_via=quote)}"


def make_card(conference: Conference, session: Session, site: Site) -> Card:
    zone = conference.zone
    start, end = session.start.astimezone(zone), session.end.astimezone(zone)
    text = session.description.replace("\r\n", "\n").strip()
    return Card(
        session=session,
        day=day_slug(session, conference),
        start_label=start.strftime("%H:%M"),
        end_label=end.strftime("%H:%M"),
        zone_label=start.tzname() or conference.timezone,
        start_local=start.isoformat(),
        end_local=end.isoformat(),
        start_utc=utc_iso(session.start),
        end_utc=utc_iso(session.end),
        kind=kind_name(session.kind),
        paragraphs=tuple(p.strip() for p in text.split("\n\n") if p.strip()),
        ics=site.path(urls.session_download(session.id)),
        google=None if session.cancelled else google_event_link(conference, session),
    )


def room_order(cards: list[Card]) -> list[str]:
    """Busiest room first (the main stage, usually), then by name; sessions without a room last."""
    counts = Counter(c.session.room.name if c.session.room else NO_ROOM for c in cards)
    return sorted(counts, key=lambda name: (name == NO_ROOM, -counts[name], name))


def place(cards: list[Card]) -> tuple[tuple[str, ...], tuple[Card, ...]]:
    """Columns (room names) and the cards with their grid column and rows (1-based, end exclusive)."""
    rooms = room_order(cards)
    column = {name: i + 1 for i, name in enumerate(rooms)}
    first = min(c.session.start for c in cards)

    def row(moment: datetime, round_up: bool) -> int:
        slots, rest = divmod(moment - first, SLOT)
        return 1 + slots + (1 if round_up and rest else 0)

    placed = []
    for card in cards:
        room = card.session.room.name if card.session.room else NO_ROOM
        start = row(card.session.start, False)
        end = max(row(card.session.end, True), start + 1)
        placed.append(replace(card, column=column[room], row_start=start, row_end=end))
    return tuple(rooms), tuple(placed)


def days(conference: Conference, sessions: list[Session], site: Site) -> list[Day]:
    """The sessions as cards grouped by conference-zone day, each day laid out as a timetable."""
    ordered = sorted(
        sessions, key=lambda s: (s.start, s.end, s.room.name if s.room else "", s.id)
    )
    cards = [make_card(conference, s, site) for s in ordered]
    result = []
    for slug, group in groupby(sorted(cards, key=lambda c: c.day), key=lambda c: c.day):
        rooms, placed = place(list(group))
        result.append(
            Day(slug, day_name(datetime.fromisoformat(slug).date()), rooms, placed)
        )
    return result
