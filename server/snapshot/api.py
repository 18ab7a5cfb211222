"""The JSON documents: `/api/feeds` (every feed with its links) and `/api/sessions` of one
conference, and `/api/conferences` (every conference the server holds).

The first two are pure functions of a `Published` snapshot and a `Site`, the last of the store's
list of conferences and the root `Site`; all are serialised with a fixed key order and no
whitespace, so equal content gives equal bytes (and ETag) on every server and in a build.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date
from functools import partial
from itertools import groupby
from operator import attrgetter
from typing import Any, TypeVar

from feeds import compact_json, urls
from feeds.exports.chunks import Texts, rendered
from feeds.ical import uid
from feeds.model import Session
from server.links import Site
from server.snapshot.conditional import JSON, Representation
from server.snapshot.published import Feed, Published, last_modified
from server.store.report import ConferenceSummary


def feed_entries(published: Published, site: Site) -> list[dict[str, Any]]:
    """One entry per catalogue feed; the index page lists the same entries."""
    return [feed_entry(feed, site) for feed in published.feeds]


def feed_entry(feed: Feed, site: Site) -> dict[str, Any]:
    return {
        "kind": feed.spec.kind.value,
        "name": feed.spec.name,
        "slug": feed.spec.slug,
        "url": site.path(feed.path),
        "webcal": site.webcal(feed.path),
        "google": site.google(feed.path),
        "events": len(feed.sessions),
    }


# `/api/feeds` is this head, the feeds' entries and this tail, so a static build can keep the
# entries of each kind apart (build_pages.py) and join the same bytes.
FEEDS_HEAD, FEEDS_TAIL = b'{"feeds":[', b"]}"


def feed_entries_json(feeds: Iterable[Feed], site: Site) -> bytes:
    """The entries of `feeds` as `/api/feeds` writes them, without the list's brackets."""
    return to_json([feed_entry(feed, site) for feed in feeds])[1:-1]


def feeds_document(published: Published, site: Site) -> dict[str, Any]:
    return {"feeds": feed_entries(published, site)}


def session_entry(published: Published, site: Site, session: Session) -> dict[str, Any]:
    """One session as `/api/sessions` lists it."""
    conference = published.conference
    zone = conference.zone
    return {
        "id": session.id,
        "uid": uid(conference, session),
        "title": session.title,
        "kind": session.kind,
        # ISO 8601 with the offset, in the conference's own zone, as attendees read it.
        "start": session.start.astimezone(zone).isoformat(),
        "end": session.end.astimezone(zone).isoformat(),
        "timezone": conference.timezone,
        "room": session.room.name if session.room else None,
        "track": session.track.name if session.track else None,
        "level": session.level.name if session.level else None,
        "description": session.description,
        "speakers": [{"name": s.name, "slug": s.slug, "affiliation": s.affiliation} for s in session.speakers],
        "status": session.status.value,
        "ics": site.path(urls.session_download(session.id)),
    }


# `/api/sessions` is this head, the sessions' entries and this tail, so a static build can keep
# the entries of each day apart (build_exports.py) and join the same bytes.
SESSIONS_HEAD, SESSIONS_TAIL = b'{"sessions":[', b"]}"
# A day's entries, whether they are the document's first (the others have a comma before them)
# and how to make their bytes with the entries' texts from a keeper; given to `sessions_body`'s
# `kept`.
Chunk = TypeVar("Chunk")
SessionsChunk = Callable[[tuple[Session, ...], bool, Callable[[Texts[Session]], bytes]], Chunk]


def session_days(published: Published) -> list[tuple[Session, ...]]:
    """Every session in the document's order, cut where the conference day changes
    (feeds.model.Conference.day_of); made once per snapshot (a static build writes the
    document twice, as `api/sessions` and its .json twin)."""
    return published.memo(("session days",), partial(_session_days, published))


def _session_days(published: Published) -> list[tuple[Session, ...]]:
    conference = published.conference
    ordered = sorted(published.schedule.sessions, key=attrgetter("start", "end", "title", "id"))
    days: list[list[Session]] = []
    last: date | None = None
    # The sessions of one start share its date: a conversion per start (hundreds), not per session.
    for start, group in groupby(ordered, key=attrgetter("start")):
        day = conference.day_of(start)
        if day != last:
            days.append([])
            last = day
        days[-1].extend(group)
    return [tuple(day) for day in days]


def sessions_body(published: Published, site: Site, kept: SessionsChunk[bytes] | None = None) -> bytes:
    """The `/api/sessions` document, each day's entries from `kept` (default: made now)."""
    return b"".join(sessions_pieces(published, site, kept))


def sessions_pieces(
    published: Published, site: Site, kept: SessionsChunk[Chunk] | None = None
) -> Iterator[bytes | Chunk]:
    """`sessions_body`'s bytes a day at a time, for a writer that never joins them (a static
    build: the document is tens of megabytes at 50,000 sessions); each day from `kept` (what
    it gives: the day's bytes, or where they are kept), when given."""
    yield SESSIONS_HEAD
    for index, day in enumerate(session_days(published)):
        make = partial(_entries, published, site, day, index == 0)
        yield make(rendered) if kept is None else kept(day, index == 0, make)
    yield SESSIONS_TAIL


def _entries(
    published: Published, site: Site, sessions: tuple[Session, ...], first: bool, texts: Texts[Session]
) -> bytes:
    """The day's items of the sessions' list: each entry's own dump, as the list's dump has it."""
    body = ",".join(texts(sessions, partial(_entry_texts, published, site))).encode("utf-8")
    return body if first else b"," + body


def _entry_texts(published: Published, site: Site, sessions: Sequence[Session]) -> list[str]:
    return [compact_json.dumps(session_entry(published, site, s)) for s in sessions]


def to_json(document: dict[str, Any] | list[Any]) -> bytes:
    return compact_json.dumps(document).encode("utf-8")


def _document(
    published: Published, site: Site, name: str, build: Callable[[Published, Site], dict[str, Any]]
) -> Representation:
    # Built once per snapshot and site, like the feeds; JSON bodies are deterministic too.
    return published.memo(
        (name, site.base_url),
        lambda: Representation(to_json(build(published, site)), JSON, last_modified(published.schedule.sessions)),
    )


def feeds_representation(published: Published, site: Site) -> Representation:
    return _document(published, site, urls.API_FEEDS, feeds_document)


def sessions_representation(published: Published, site: Site) -> Representation:
    return published.memo(
        (urls.API_SESSIONS, site.base_url),
        lambda: Representation(sessions_body(published, site), JSON, last_modified(published.schedule.sessions)),
    )


def conferences_document(summaries: Sequence[ConferenceSummary], site: Site) -> dict[str, Any]:
    """Every conference in the order it was first ingested; `url` is the base path of its page
    (the default conference is also served at the root, which this list does not repeat)."""
    return {
        "conferences": [
            {
                "slug": c.slug,
                "name": c.conference.name,
                "timezone": c.conference.timezone,
                "start": c.conference.start_date.isoformat(),
                "end": c.conference.end_date.isoformat(),
                "sessions": c.sessions,
                "url": site.path(urls.conference_page(c.slug)),
            }
            for c in summaries
        ]
    }


def conferences_representation(summaries: Sequence[ConferenceSummary], site: Site) -> Representation:
    # A server makes it once per list of conferences (server.snapshot.live.Served.conferences).
    return Representation(to_json(conferences_document(summaries, site)), JSON)
