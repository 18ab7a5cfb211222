"""The schedule page joined from parts: its frame, one section per day, the subscribe section.

A page of a 10,000-session conference is 25 MB of HTML, nine tenths of it the days' cards.
Rendered as one template, Jinja joined a few million pieces into one string (four bytes a
character once a title holds an emoji) and then encoded it: about 190 MB more while the
all-days page rendered. Here each day's section (`_day.html`) is rendered and
encoded on its own, the subscribe section once per snapshot and depth, and the frame
(`schedule.html`, with a marker where each of those go) is cut at its markers: the page is
the bytes joined, the same bytes as before. A day's section is its frame (`_day.html`, a
marker per slot) with each card's markup (`detail_html.card_text`, cut around the card's place
in the grid) placed in it. A static build passes its own `Fragments`,
which keys each part on what it shows, so a rebuild reuses the sections of the days a change did
not touch, and the markup of the cards a change did not touch (build_pages.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import partial
from typing import Protocol, TypeVar

from markupsafe import Markup

from feeds.catalogue import FeedKind
from feeds.model import Session
from server.pages.cards import Card, Day, days, session_card
from server.pages.detail_html import card_text
from server.pages.render import fragment
from server.snapshot.published import Published

# Where the days' sections and the subscribe section go in the frame: random per process, so
# no schedule text and no query string can hold one.
SECTIONS = Markup(f"\x00sections-{secrets.token_hex(16)}\x00")
SUBSCRIBE = Markup(f"\x00subscribe-{secrets.token_hex(16)}\x00")
GROUP = Markup(f"\x00group-{secrets.token_hex(16)}\x00")  # each group of the subscribe section
SLOT_CARDS = Markup(f"\x00slot-{secrets.token_hex(16)}\x00")  # where a slot's cards go in _day.html

# A day of more cards than this has its slots after the first FIRST_CARDS cards laid out only when
# the page's script needs them (_day.html): the first screen of a FOSDEM day (470 cards) is cheap.
LAZY_DAY = 60
FIRST_CARDS = 12

S = TypeVar("S")
# A day's section by slug and depth, from how to make it: its bytes, or where they are kept.
Section = Callable[[str, int, Callable[[], bytes]], S]

# A card's markup around its place in the grid: before the "short" class, between it and the
# grid style's value, after that.
CardText = tuple[str, str, str]
# Cards' markup at a depth, in their order: `card_texts` or a build's kept copy of it.
CardTexts = Callable[[Sequence[Card]], list[CardText]]


class Fragments(Protocol):
    """Where a page's parts come from: `make()`, or a build's copy of the same bytes."""

    def section(self, slug: str, depth: int, make: Callable[[], bytes]) -> bytes: ...

    def cards(self, slug: str, depth: int, cards: Sequence[Card], make: CardTexts) -> list[CardText]: ...

    def subscribe(self, depth: int, make: Callable[[], bytes]) -> bytes: ...

    def group(self, shown: tuple[object, ...], depth: int, make: Callable[[], bytes]) -> bytes: ...


class Made:
    """Every part made on the spot (the server; a build without a record)."""

    def section(self, slug: str, depth: int, make: Callable[[], bytes]) -> bytes:
        return make()

    def cards(self, slug: str, depth: int, cards: Sequence[Card], make: CardTexts) -> list[CardText]:
        return make(cards)

    def subscribe(self, depth: int, make: Callable[[], bytes]) -> bytes:
        return make()

    def group(self, shown: tuple[object, ...], depth: int, make: Callable[[], bytes]) -> bytes:
        return make()


def day_sessions(published: Published) -> dict[str, tuple[Session, ...]]:
    """The whole conference's sessions by conference-zone day (ISO date), days in order, each
    in the feed's order: what `cards.days` lays out, without laying it out. They are the day
    feeds' sessions (feeds.catalogue.partition puts each of the whole conference's sessions, in
    its order, in the feed of the day it starts on), so no session's day is worked out again:
    a zone conversion per session for every build's first page key."""

    def group() -> dict[str, tuple[Session, ...]]:
        by_day = {f.spec.slug: f.sessions for f in published.feeds_of(FeedKind.DAY) if f.sessions}
        return {slug: by_day[slug] for slug in sorted(by_day)}

    return published.memo(("day sessions",), group)


def day_layout(published: Published, slug: str) -> Day:
    """One day's timetable: a day is laid out from its own sessions only (cards.place)."""
    sessions = list(day_sessions(published)[slug])
    return published.memo(
        ("day", slug), lambda: days(published.conference, sessions, partial(session_card, published))[0]
    )


def day_section(
    published: Published, slug: str, depth: int, hidden: Collection[str], parts: Fragments | None = None
) -> bytes:
    """One day's `<section>` at `depth`, as it is when it is not the first on its page: the day's
    frame (_day.html) with each slot's cards in place of its marker, each card's markup (from
    `parts`: a build keeps it per session) with its place in the grid."""
    day = day_layout(published, slug)
    cards = day.cards
    make = partial(card_texts, published, depth, hidden)
    texts = iter(make(cards) if parts is None else parts.cards(slug, depth, cards, make))
    context = {"day": day, "hidden": hidden, "conference": published.conference, "slot_cards": SLOT_CARDS}
    context |= {"LAZY_DAY": LAZY_DAY, "FIRST_CARDS": FIRST_CARDS}
    head, *rest = str(fragment("_day.html", depth, context)).split(SLOT_CARDS)
    if len(rest) != len(day.slots):
        raise ValueError("_day.html lost a slot's marker")
    joined = [head]
    for slot, after in zip(day.slots, rest, strict=True):
        joined += [place(card, next(texts)) for card in slot.cards]
        joined.append(after)
    return "".join(joined).encode("utf-8")


def card_texts(published: Published, depth: int, hidden: Collection[str], cards: Sequence[Card]) -> list[CardText]:
    """Each card's markup at `depth`, cut around its place in the grid (detail_html.card_text)."""
    up, timezone = "../" * depth, published.conference.timezone
    return [card_text(card, up, timezone, hidden) for card in cards]


def place(card: Card, text: CardText) -> str:
    """`card`'s markup with its place in the grid: short when it spans three rows or fewer."""
    before, between, after = text
    short = " short" if card.row_end - card.row_start <= 3 else ""
    return f"{before}{short}{between}grid-column: {card.column + 1}; grid-row: {card.row_start} / {card.row_end}{after}"


def first_section(section: bytes, slug: str) -> bytes:
    """`section` as the first on its page: its now-line is the one `#now-line` links jump to."""
    return section.replace(f'id="now-line-{slug}"'.encode(), b'id="now-line"', 1)


def page_pieces(frame: str, sections: Iterable[S], subscribe: Callable[[], bytes]) -> Iterator[bytes | S]:
    """The frame with the days' sections and the subscribe section in place of its markers, in
    pieces, each section and the subscribe section taken when its place comes: a static build
    writes the all-days page (tens of megabytes at 50,000 sessions) a section at a time
    instead of joining it."""
    head, found, rest = frame.partition(SECTIONS)
    middle, found_too, tail = rest.partition(SUBSCRIBE)
    if not (found and found_too):
        raise ValueError("schedule.html lost a part's marker")
    yield head.encode("utf-8")
    yield from sections
    yield middle.encode("utf-8")
    yield subscribe()
    yield tail.encode("utf-8")


def join_marked(text: str, mark: str, parts: list[bytes]) -> bytes:
    """`text` with each `mark` in it replaced by the next of `parts`."""
    pieces = text.split(mark)
    if len(pieces) != len(parts) + 1:
        raise ValueError("a template lost a part's marker")
    joined = [pieces[0].encode("utf-8")]
    for part, piece in zip(parts, pieces[1:], strict=True):
        joined += (part, piece.encode("utf-8"))
    return b"".join(joined)
