"""The conference by track, by room and by speaker: `tracks/` and `rooms/` (every track or room,
with its number of sessions), `tracks/{slug}/` and `rooms/{slug}/` (its sessions by day, and its
feed), and `speakers/` (a directory: each speaker's role, affiliation and bio, as Sched pages
and pretalx carry them, and their sessions).

Rendered from the snapshot like the session and speaker pages (autoescaped, relative links, so
they work under a conference's base path and from a static build) and memoized per snapshot.
A track's or room's sessions are its catalogue feed's, so the page lists exactly what its feed
holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime
from functools import partial
from typing import Literal

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from feeds.catalogue import FeedKind, day_name
from feeds.model import Session
from server.links import Site
from server.pages import params
from server.pages.calendar_links import feed_links
from server.pages.cards import page_path, session_card
from server.pages.context import route_context
from server.pages.detail_html import (
    DirectoryEntry,
    directory_entry,
    facet_day,
    facet_end,
    facet_head,
    facet_item,
    shell,
    speakers_article,
)
from server.pages.detail_pages import SpeakerEntry, heading, html_page, speaker_path, speakers
from server.pages.render import render
from server.snapshot.conditional import Representation
from server.snapshot.published import Feed, Published

# kind -> (directory, plural heading, singular label)
KINDS = {"track": (urls.TRACKS.rstrip("/"), "Tracks", "Track"), "room": (urls.ROOMS.rstrip("/"), "Rooms", "Room")}
SPEAKERS = urls.SPEAKERS
BIO_CHARACTERS = 400  # of a bio in the directory; the speaker's page has all of it


def facet_index(kind: str) -> str:
    """`tracks/` or `rooms/`, relative to the conference's base."""
    return f"{KINDS[kind][0]}/"


def facet_page(kind: str, slug: str) -> str:
    """`tracks/{slug}/` or `rooms/{slug}/`, relative to the conference's base."""
    return f"{KINDS[kind][0]}/{slug}/"


def facet_page_path(feed: Feed) -> str:
    """A track's or room's page as a file, relative to the conference's base."""
    return facet_page(feed.spec.kind.value, feed.spec.slug) + urls.PAGE_FILE


def facet_feeds(published: Published, kind: str) -> list[Feed]:
    """The catalogue's feeds of `kind` (track or room) that have sessions, by name."""
    found = [f for f in published.feeds_of(FeedKind(kind)) if f.sessions]
    return sorted(found, key=lambda f: f.spec.name.casefold())


# Whether a session opens its day's list on a track's or room's page: not, as the first day, or
# as a later day (which ends the list before it).
Opens = Literal["", "first", "next"]


def facet_rows(published: Published, sessions: tuple[Session, ...]) -> list[tuple[Session, Opens]]:
    """A track's or room's sessions in its page's order (by start, then id), each with whether
    it opens its day (a day named by the date the sessions start on in the conference zone)."""
    day_of = published.conference.day_of
    rows: list[tuple[Session, Opens]] = []
    last: date | None = None
    for session in sorted(sessions, key=_start_then_id):
        day = day_of(session.start)
        rows.append((session, "" if day == last else "next" if rows else "first"))
        last = day
    return rows


def _start_then_id(session: Session) -> tuple[datetime, str]:
    return session.start, session.id


def facet_row(published: Published, kind: str, session: Session, opens: Opens) -> bytes:
    """A session's row on a track's or room's page (`kind`): its item, after its day's heading
    when it opens the day (`facet_rows`)."""
    item = facet_item(session_card(published, session), kind)
    if opens:
        item = facet_day(day_name(published.conference.day_of(session.start)), opens == "first") + item
    return item.encode()


def facet_ends(published: Published, site: Site, kind: str, feed: Feed) -> tuple[bytes, bytes]:
    """A track's or room's page's bytes before its rows (`facet_row`) and after them."""
    conference = published.conference
    label = KINDS[kind][2]
    name = feed.spec.name
    count = len(feed.sessions)
    description = (
        f"{label} {name} at {conference.name}: {count} "
        + ("session" if count == 1 else "sessions")
        + ", and a calendar feed of them."
    )
    title = f"{label}: {name}"
    page = shell(conference, 2)
    head = facet_head(
        title, name, (facet_index(kind), f"All {KINDS[kind][1].lower()}"), feed_links(site, feed.path, feed.spec.title)
    )
    return page.before(title, description) + head.encode(), facet_end(bool(feed.sessions)).encode() + page.tail


def facet_representation(published: Published, site: Site, kind: str, feed: Feed) -> Representation:
    def build() -> Representation:
        before, after = facet_ends(published, site, kind, feed)
        rows = [facet_row(published, kind, session, opens) for session, opens in facet_rows(published, feed.sessions)]
        return html_page(b"".join((before, *rows, after)), feed.sessions)

    return published.memo(("facet page", site.base_url, kind, feed.spec.slug), build)


def facet_index_representation(published: Published, site: Site, kind: str) -> Representation:
    def build() -> Representation:
        heading_text = KINDS[kind][1]
        entries = [
            {"name": f.spec.name, "path": facet_page(kind, f.spec.slug), "count": len(f.sessions)}
            for f in facet_feeds(published, kind)
        ]
        context = {
            **heading(published),
            "description": f"The {heading_text.lower()} of {published.conference.name}, each with its sessions.",
            "title": heading_text,
            "entries": entries,
        }
        return html_page(render("facet_index.html", 1, context), published.schedule.sessions)

    return published.memo(("facet index", site.base_url, kind), build)


def directory_entries(published: Published) -> list[DirectoryEntry]:
    """The speakers' directory's entries, by name."""

    def build() -> list[DirectoryEntry]:
        return [directory_entry_of(entry) for entry in directory_order(speakers(published).values())]

    return published.memo(("directory entries",), build)


def directory_order(entries: Iterable[SpeakerEntry]) -> list[SpeakerEntry]:
    """The speakers in the directory's order."""
    return sorted(entries, key=directory_place)


def directory_place(entry: SpeakerEntry) -> tuple[str, str]:
    """Where a speaker is in the directory: by name, then slug."""
    return entry.speaker.name.casefold(), entry.speaker.slug


def directory_entry_of(entry: SpeakerEntry) -> DirectoryEntry:
    """What the directory shows of a speaker: their bio shortened, their sessions' titles and pages."""
    person = entry.speaker
    bio = " ".join((person.bio or "").split())
    if len(bio) > BIO_CHARACTERS:
        bio = bio[: BIO_CHARACTERS - 1].rsplit(" ", 1)[0] + "…"
    shown = tuple((s.title, page_path(s)) for s in entry.sessions)
    return DirectoryEntry(person, speaker_path(person), bio, shown)


def directory_entry_bytes(entry: SpeakerEntry) -> bytes:
    """A speaker's entry in the speakers' directory, as the page's bytes hold it."""
    return directory_entry(directory_entry_of(entry)).encode()


def speakers_index_representation(published: Published, site: Site) -> Representation:
    def build() -> Representation:
        # Each entry is made, encoded and dropped in turn, and the entries are not kept: the page
        # is tens of megabytes in a large conference, and a server holding the entries, or all
        # their markup as one string, beside its bytes would hold it several times over.
        people = directory_order(speakers(published).values())
        entries = map(directory_entry_bytes, people)
        return html_page(speakers_index_body(published, entries, len(people)), published.schedule.sessions)

    return published.memo(("speakers index", site.base_url), build)


def speakers_index_body(published: Published, entries: Iterable[bytes], count: int) -> bytes:
    """The speakers' directory page around its `count` entries' markup (detail_html.directory_entry,
    encoded), in the directory's order."""
    before, after = speakers_index_ends(published, count)
    return b"".join((before, *entries, after))


def speakers_index_ends(published: Published, count: int) -> tuple[bytes, bytes]:
    """The bytes of `speakers_index_body` before its entries and after them: a build joins the
    entries between them, most as the file it last wrote has them."""
    conference = published.conference
    description = f"The {count} speakers of {conference.name}, with their sessions."
    page = shell(conference, 1, "directory.html")
    opening, closing = speakers_article("Speakers")
    return page.before("Speakers", description) + opening.encode(), closing.encode() + page.tail


# (site-relative file, what it shows besides sessions, how to make it, the feed whose sessions
# a facet's page shows: None for a kind's index, which shows none)
IndexFile = tuple[str, object, Callable[[], Representation], Feed | None]


def index_files(published: Published, site: Site) -> Iterator[IndexFile]:
    """For `confcal build`: the track and room pages as `…/index.html`, with what each shows (a
    build keys each page on it) and how to make it. (The speakers' directory is joined from its
    entries by the build: server.site.build_pages.)"""
    for kind in KINDS:
        feeds = facet_feeds(published, kind)
        listed = [(f.spec.name, f.spec.slug, len(f.sessions)) for f in feeds]
        yield (
            facet_index(kind) + urls.PAGE_FILE,
            ("index", kind, listed),
            partial(facet_index_representation, published, site, kind),
            None,
        )
        for feed in feeds:
            if params.is_safe_id(feed.spec.slug):
                yield (
                    facet_page_path(feed),
                    ("facet", kind, feed.spec),
                    partial(facet_representation, published, site, kind, feed),
                    feed,
                )


def _index_route(kind: str) -> Route:
    async def page(request: Request) -> Response:
        context = route_context(request)
        published = await context.current(request)
        rep = await anyio.to_thread.run_sync(facet_index_representation, published, context.site(request), kind)
        return context.send(request, rep, params.NO_PARAMS)

    return Route(f"/{facet_index(kind)}", page, methods=["GET", "HEAD"])


def _facet_route(kind: str) -> Route:
    async def page(request: Request) -> Response:
        context = route_context(request)
        slug = params.slug_segment(request.path_params["slug"])
        published = await context.current(request)
        feed = published.feed(kind, slug)
        if feed is None or not feed.sessions:
            return params.not_found(f"no such {kind}")
        rep = await anyio.to_thread.run_sync(facet_representation, published, context.site(request), kind, feed)
        return context.send(request, rep, params.NO_PARAMS)

    return Route(f"/{facet_index(kind)}{{slug}}/", page, methods=["GET", "HEAD"])


async def speakers_page(request: Request) -> Response:
    context = route_context(request)
    published = await context.current(request)
    rep = await anyio.to_thread.run_sync(speakers_index_representation, published, context.site(request))
    return context.send(request, rep, params.NO_PARAMS)


routes = [
    *(_index_route(kind) for kind in KINDS),
    *(_facet_route(kind) for kind in KINDS),
    Route(f"/{SPEAKERS}", speakers_page, methods=["GET", "HEAD"]),
]


__all__ = ["KINDS", "facet_index", "facet_page", "index_files", "routes"]
