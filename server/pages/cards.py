"""What the schedule page shows of a session (a `Card`) and where it sits in a day's timetable.

Pure functions of the model: times are converted from the session's UTC instants to the
conference zone here, on the server, so the page reads right without JavaScript; the UTC instants
go into data attributes for the script that adds the viewer's own zone and "now".

The timetable is a CSS grid: a time column, then one column per room; one row per 5-minute slot
of the day, all rows the same height, so a card's height follows its duration (a card is at
least `MIN_ROWS` tall unless the room's next session starts sooner). Slots are counted in elapsed
time from the first start, not wall time, so a day across a DST change still places every card
in order. Cards starting together form a `Slot` with a time heading, in the rooms' column order,
so the phone list, a screen reader and Tab all read a slot left to right.

A snapshot makes each session's card once (`session_card`): the day's section, the session's
page and its speakers' pages all show the same card.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import lru_cache
from itertools import groupby
from zoneinfo import ZoneInfo

from feeds import urls
from feeds.catalogue import day_name, day_slug, kind_name, kind_slug
from feeds.model import Conference, Session
from server.pages.calendar_links import offered_links
from server.snapshot.published import Published

SLOT = timedelta(minutes=5)
MIN_ROWS = 2  # a 5-minute lightning talk still gets room for its time and title
NO_ROOM = "No room given"

__all__ = ["Card", "Day", "Slot", "Tick", "days", "make_card", "session_card", "ticks", "utc_iso"]


@dataclass(frozen=True, slots=True)
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
    kind_slug: str
    ics: str  # site-relative
    page: str  # site-relative: sessions/{id}/
    # For `links` only: a card is its session's in that conference's zone.
    conference: Conference = field(compare=False, repr=False)
    column: int = 1
    row_start: int = 1
    row_end: int = 2

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def links(self) -> tuple[str | None, str | None]:
        """Google's and Outlook's links adding the session, without its abstract (a card's link
        stays short; the session page carries it); none for a cancelled session. Made when a
        day's section shows the card, not with it: the session's and speakers' pages show its
        card without them (a pair of links per session a build would make for nothing), and a
        rebuild lays out a moved session's day with the other cards' markup kept."""
        return offered_links(self.conference, self.session, details=False)

    @property
    def anchor(self) -> str:
        """The card's id on the schedule page, where a feed's link to the session points."""
        return urls.session_anchor(self.session.id)

    @property
    def room_slug(self) -> str:
        return self.session.room.slug if self.session.room else ""

    @property
    def speaker_slugs(self) -> str:
        return " ".join(s.slug for s in self.session.speakers)

    @property
    def hue(self) -> int:
        """The track's colour on the card, as a hue (0-359) derived from its slug: the same in
        every build and on every page, distinct enough across dozens of tracks; the stylesheet
        picks the lightness that keeps the contrast (WCAG 1.4.3, 1.4.11) in light and dark."""
        track = self.session.track
        if track is None:
            return -1
        return int.from_bytes(hashlib.blake2s(track.slug.encode(), digest_size=2).digest()) % 360

    @property
    def minutes(self) -> int:
        return (self.session.end - self.session.start) // timedelta(minutes=1)


@dataclass(frozen=True)
class Slot:
    """The cards starting at one time, in column order, under one time heading."""

    label: str  # "11:00" in the conference zone
    local: str  # ISO 8601 with offset
    row: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class Tick:
    """A mark on the grid's time axis: every half hour of wall time, at its row."""

    label: str  # "10:30" in the conference zone
    row: int


@dataclass(frozen=True)
class Day:
    slug: str
    name: str
    rooms: tuple[str, ...]  # column headings, in column order
    slots: tuple[Slot, ...]  # in time order
    rows: int  # 5-minute rows from the first start to the last end
    ticks: tuple[Tick, ...] = ()  # the time axis, in regular steps

    @property
    def cards(self) -> tuple[Card, ...]:
        """In time order, then column order: the order of the page's source."""
        return tuple(card for slot in self.slots for card in slot.cards)


def utc_iso(moment: datetime) -> str:
    return moment.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")


def page_path(session: Session) -> str:
    """The session's page, relative to the conference's base path."""
    return urls.session_page(session.id)


@lru_cache(maxsize=8192)
def _moment(instant: datetime, timezone: str) -> tuple[str, str, str, str | None]:
    """An instant as a card shows it in `timezone`: "11:00", ISO 8601 with offset, ISO 8601 in
    UTC, the zone's abbreviation. Thousands of sessions share a few hundred starts and ends."""
    local = instant.astimezone(ZoneInfo(timezone))
    # strftime("%H:%M") exactly, without strftime's detour through the C library.
    return f"{local.hour:02}:{local.minute:02}", local.isoformat(), utc_iso(instant), local.tzname()


def make_card(conference: Conference, session: Session) -> Card:
    start_label, start_local, start_utc, zone = _moment(session.start, conference.timezone)
    end_label, end_local, end_utc, _ = _moment(session.end, conference.timezone)
    return Card(
        session=session,
        day=day_slug(session, conference),
        start_label=start_label,
        end_label=end_label,
        zone_label=zone or conference.timezone,
        start_local=start_local,
        end_local=end_local,
        start_utc=start_utc,
        end_utc=end_utc,
        kind=kind_name(session.kind),
        kind_slug=kind_slug(session.kind),
        ics=urls.session_download(session.id),
        page=page_path(session),
        conference=conference,
    )


def session_card(published: Published, session: Session) -> Card:
    """`make_card` of `session` once per snapshot: a build shows each session's card on its
    day's section, its page and each of its speakers' pages (several cards a session otherwise,
    with two event links each). A card depends on the conference and the
    session only, both fixed in a snapshot; a session object the snapshot does not hold under
    its id gets a card of its own."""
    made: dict[str, Card] = published.memo(("cards",), dict)
    card = made.get(session.id)
    if card is None or card.session is not session:
        card = make_card(published.conference, session)
        if published.session(session.id) is session:
            made[session.id] = card
    return card


def room_order(cards: list[Card]) -> list[str]:
    """Busiest room first (the main stage, usually), then by name; sessions without a room last."""
    counts = Counter(c.session.room.name if c.session.room else NO_ROOM for c in cards)
    return sorted(counts, key=lambda name: (name == NO_ROOM, -counts[name], name))


def place(cards: list[Card]) -> tuple[tuple[str, ...], tuple[Slot, ...], int]:
    """Columns (room names), the cards grouped into slots with their grid column and rows
    (1-based, end exclusive), and the number of rows."""
    rooms = room_order(cards)
    column = {name: i + 1 for i, name in enumerate(rooms)}
    first = min(c.session.start for c in cards)

    def row(moment: datetime, round_up: bool) -> int:
        slots, rest = divmod(moment - first, SLOT)
        return 1 + slots + (1 if round_up and rest else 0)

    def room_of(card: Card) -> str:
        return card.session.room.name if card.session.room else NO_ROOM

    # The next start in the same column caps the minimum height, so cards never overlap.
    starts: dict[int, list[int]] = {}
    for card in cards:
        starts.setdefault(column[room_of(card)], []).append(row(card.session.start, False))
    placed = []
    for card in cards:
        col = column[room_of(card)]
        start = row(card.session.start, False)
        following = [s for s in starts[col] if s > start]
        end = max(row(card.session.end, True), start + MIN_ROWS)
        end = min(end, min(following)) if following else end
        placed.append(replace(card, column=col, row_start=start, row_end=max(end, start + 1)))
    placed.sort(key=lambda c: (c.session.start, c.column, c.session.end, c.id))
    slots = tuple(
        Slot(group[0].start_label, group[0].start_local, group[0].row_start, tuple(group))
        for group in (list(g) for _, g in groupby(placed, key=lambda c: c.session.start))
    )
    rows = max(c.row_end for c in placed) - 1
    return tuple(rooms), slots, rows


def days(conference: Conference, sessions: list[Session], card: Callable[[Session], Card] | None = None) -> list[Day]:
    """The sessions as cards (`card`, or `make_card`) grouped by conference-zone day, each day
    laid out as a timetable."""
    cards = [card(s) if card else make_card(conference, s) for s in sessions]
    result = []
    for slug, group in groupby(sorted(cards, key=lambda c: c.day), key=lambda c: c.day):
        rooms, slots, rows = place(list(group))
        first = min(c.session.start for slot in slots for c in slot.cards)
        name = day_name(datetime.fromisoformat(slug).date())
        result.append(Day(slug, name, rooms, slots, rows, ticks(first, rows, conference)))
    return result


TICK_MINUTES = 30


def ticks(first: datetime, rows: int, conference: Conference) -> tuple[Tick, ...]:
    """The time axis of a day laid out from `first` over `rows` rows: a mark at every full half
    hour of the conference's wall time (rows count elapsed time, so a DST change still marks each
    half hour where it falls)."""
    found = []
    for row in range(rows):
        moment = (first + row * SLOT).astimezone(conference.zone)
        if moment.minute % TICK_MINUTES == 0:
            found.append(Tick(f"{moment.hour:02}:{moment.minute:02}", row + 1))
    return tuple(found)
