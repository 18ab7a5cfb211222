"""The schedule page joined from parts: its frame, one section per day, the subscribe section.

A page of a 10,000-session conference is 25 MB of HTML, nine tenths of it the days' cards.
Rendered as one template, Jinja joined a few million pieces into one string (four bytes a
character once a title holds an emoji) and then encoded it: about 190 MB more while the
all-days page rendered (issue 12). Here each day's section (`_day.html`) is rendered and
encoded on its own, the subscribe section once per snapshot and depth, and the frame
(`schedule.html`, with a marker where each of those go) is cut at its markers: the page is
the bytes joined, the same bytes as before. A static build passes its own `Fragments`, which
keys each part on what it shows, so a rebuild reuses the sections of the days a change did
not touch (site_build.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection
from functools import partial
from typing import Protocol

from markupsafe import Markup

from feeds.catalogue import FeedKind, day_slug
from feeds.model import Session
from server.app.cards import Day, days, session_card
from server.app.published import Published
from server.app.render import fragment

# Where the days' sections and the subscribe section go in the frame: random per process, so
# no schedule text and no query string can hold one.
SECTIONS = Markup(f"\x00sections-{secrets.token_hex(16)}\x00")
SUBSCRIBE = Markup(f"\x00subscribe-{secrets.token_hex(16)}\x00")
GROUP = Markup(f"\x00group-{secrets.token_hex(16)}\x00")  # each group of the subscribe section


class Fragments(Protocol):
    """Where a page's parts come from: `make()`, or a build's copy of the same bytes."""

    def section(self, slug: str, depth: int, make: Callable[[], bytes]) -> bytes: ...

    def subscribe(self, depth: int, make: Callable[[], bytes]) -> bytes: ...

    def group(self, shown: tuple[object, ...], depth: int, make: Callable[[], bytes]) -> bytes: ...


class Made:
    """Every part made on the spot (the server; a build without a record)."""

    def section(self, slug: str, depth: int, make: Callable[[], bytes]) -> bytes:
        return make()

    def subscribe(self, depth: int, make: Callable[[], bytes]) -> bytes:
        return make()

    def group(self, shown: tuple[object, ...], depth: int, make: Callable[[], bytes]) -> bytes:
        return make()


def day_sessions(published: Published) -> dict[str, tuple[Session, ...]]:
    """The whole conference's sessions by conference-zone day (ISO date), days in order, each
    in the feed's order: what `cards.days` lays out, without laying it out."""

    def group() -> dict[str, tuple[Session, ...]]:
        everything = published.feed(FeedKind.ALL.value, "")
        by_day: dict[str, list[Session]] = {}
        for session in everything.sessions if everything else ():
            by_day.setdefault(day_slug(session, published.conference), []).append(session)
        return {slug: tuple(by_day[slug]) for slug in sorted(by_day)}

    return published.memo(("day sessions",), group)


def day_layout(published: Published, slug: str) -> Day:
    """One day's timetable: a day is laid out from its own sessions only (cards.place)."""
    sessions = list(day_sessions(published)[slug])
    return published.memo(
        ("day", slug), lambda: days(published.conference, sessions, partial(session_card, published))[0]
    )


def day_section(published: Published, slug: str, depth: int, hidden: Collection[str]) -> bytes:
    """One day's `<section>` at `depth`, as it is when it is not the first on its page."""
    context = {"day": day_layout(published, slug), "hidden": hidden, "conference": published.conference}
    return fragment("_day.html", depth, context).encode("utf-8")


def first_section(section: bytes, slug: str) -> bytes:
    """`section` as the first on its page: its now-line is the one `#now-line` links jump to."""
    return section.replace(f'id="now-line-{slug}"'.encode(), b'id="now-line"', 1)


def join_page(frame: str, sections: list[bytes], subscribe: bytes) -> bytes:
    """The frame with the days' sections and the subscribe section in place of its markers."""
    head, found, rest = frame.partition(SECTIONS)
    middle, found_too, tail = rest.partition(SUBSCRIBE)
    if not (found and found_too):
        raise ValueError("schedule.html lost a part's marker")
    return b"".join((head.encode("utf-8"), *sections, middle.encode("utf-8"), subscribe, tail.encode("utf-8")))


def join_marked(text: str, mark: str, parts: list[bytes]) -> bytes:
    """`text` with each `mark` in it replaced by the next of `parts`."""
    pieces = text.split(mark)
    if len(pieces) != len(parts) + 1:
        raise ValueError("a template lost a part's marker")
    joined = [pieces[0].encode("utf-8")]
    for part, piece in zip(parts, pieces[1:], strict=True):
        joined += (part, piece.encode("utf-8"))
    return b"".join(joined)
