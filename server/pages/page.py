"""The schedule page at `/`: the day's timetable, now and next, filters, subscribe picker, picks.

Server-rendered (Jinja2, autoescaped: schedule text is third-party input), so browsing, the
filters (a GET form) and every link work without JavaScript; static/schedule.js adds live
filtering and search, now and next, the viewer's own time zone, picks and offline use.
Everything the page loads is served by confcal itself (no CDN, fonts or analytics); the
Content-Security-Policy says so to the browser as well.

The page is a pure function of a `Published` snapshot, a `Site` and the `View` in its URL,
memoized per snapshot, so it is rendered once per schedule change and view and has a stable ETag.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, replace
from datetime import date
from functools import partial
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from feeds.catalogue import FeedKind, day_name
from feeds.query import NONE
from server.links import NO_OTHERS, OtherConferences, Site
from server.pages import params
from server.pages.assets import STATIC, lookup, service_worker, static_files
from server.pages.context import route_context
from server.pages.detail_pages import detail_files
from server.pages.page_parts import (
    SECTIONS,
    SUBSCRIBE,
    Fragments,
    Made,
    S,
    Section,
    day_section,
    day_sessions,
    first_section,
    page_pieces,
)
from server.pages.qr import qr_svg, qr_title
from server.pages.render import CSP, page_text
from server.pages.search import index_body, index_rows, matching
from server.pages.subscribe import level_key, subscribe_section
from server.pages.view import ALL_DAYS, PARAMS, View
from server.snapshot.conditional import HTML, JSON, Representation
from server.snapshot.published import Published, last_modified

FILTERS = (("track", "Track"), ("room", "Room"), ("level", "Level"), ("kind", "Type"))


def options(published: Published, kind: str) -> list[tuple[str, str]]:
    """(value, label) of one filter: the catalogue's values (levels in their natural order),
    then "(no track)" when some sessions have none. The same on every page of a snapshot."""
    return published.memo(("options", kind), partial(_options, published, kind))


def _options(published: Published, kind: str) -> list[tuple[str, str]]:
    feeds = published.feeds_of(FeedKind(kind))
    found = [(f.spec.slug, f.spec.name) for f in feeds]
    if kind == "level":
        found.sort(key=level_key)
    everything = published.feed(FeedKind.ALL.value, "")
    # A session has one track, room and level at most, so it is in one of their feeds or none:
    # counted from the feeds, not by going over every session.
    if (
        kind in ("track", "room", "level")
        and everything
        and sum(map(len, (f.members for f in feeds))) < len(everything.members)
    ):
        found.append((NONE, f"(no {kind})"))
    return found


def page_context(
    published: Published,
    site: Site,
    view: View,
    others: OtherConferences = NO_OTHERS,
    day_page: bool = False,
) -> dict[str, Any]:
    conference = published.conference
    everything = published.feed(FeedKind.ALL.value, "")
    sessions = everything.sessions if everything else ()
    by_day = day_sessions(published)
    slugs = list(by_day)
    multi_day = len(slugs) > 1
    day = view.day if view.day in (*slugs, ALL_DAYS) else (slugs[0] if slugs else "")
    shown_days = [slug for slug in slugs if day in (ALL_DAYS, slug)]
    hidden: set[str] = set()
    searched = view.searched()
    if searched:
        query = view.query()
        found = matching(sessions, view.q) if view.q.strip() else None
        hidden = {
            s.id for s in sessions if not query.matches(s, conference) or (found is not None and s.id not in found)
        }
    # A search or filter covers every day: how many each day has, with a link to it (the script
    # keeps these up to date as the search is typed, from search.json).
    day_counts = []
    if multi_day:
        state = view.state_query()
        for slug in (*slugs, ALL_DAYS):
            # Unsearched, no counts: a day page shows nothing of another day's sessions (and a
            # static build makes a page a day, each of which would go over every session).
            count: int | str = ""
            if searched:
                count = sum(1 for one in slugs if slug in (ALL_DAYS, one) for s in by_day[one] if s.id not in hidden)
            day_counts.append(
                {
                    "slug": slug,
                    "name": "All days" if slug == ALL_DAYS else day_name(date.fromisoformat(slug)),
                    "count": count,
                    "path": urls.day_page(slug),
                    "query": f"?{state}" if state else "",
                }
            )
    total = sum(len(by_day[slug]) for slug in shown_days)
    shown = total - sum(1 for slug in shown_days for s in by_day[slug] if s.id in hidden) if hidden else total
    feed_day = day if multi_day and day != ALL_DAYS else None
    feed_query = view.feed_query(feed_day)
    all_feed = everything.path if everything else "feeds/all.ics"
    filtered_feed = site.url(all_feed) + (f"?{feed_query}" if feed_query else "")
    filters = [
        {
            "kind": kind,
            "label": label,
            "options": options(published, kind),
            "selected": view.first(kind),
        }
        for kind, label in FILTERS
    ]
    # A filter with nothing to choose (no session has a level) is not offered.
    filters = [f for f in filters if [v for v, _ in f["options"] if v != NONE]]
    when = day_name(conference.start_date)
    if conference.end_date != conference.start_date:
        when = f"{when} – {day_name(conference.end_date)}"
    return {
        "conference": conference,
        "when": when,
        "description": (
            f"Schedule of {conference.name}, {when}"
            + (f", {conference.city}" if conference.city else "")
            + f": {len(sessions)} sessions, calendar feeds to subscribe to, and your own picks."
        ),
        "sections": SECTIONS,
        "shown_days": shown_days,
        "day_tabs": [(slug, day_name(date.fromisoformat(slug))) for slug in slugs] if multi_day else [],
        "day_page": day_page,
        "day": day,
        "all_days": ALL_DAYS,
        "hidden": hidden,
        "total": total,
        "shown": shown,
        "filters": filters,
        "view": view,
        "subscribe": SUBSCRIBE,
        "filtered_feed": filtered_feed,
        "day_counts": day_counts,
        "searched": searched,
        "view_what": view_what(filters, view, day_name(date.fromisoformat(feed_day)) if feed_day else ""),
        "all_days_webcal": site.webcal(all_feed) + (f"?{view.feed_query(None)}" if view.feed_query(None) else ""),
        "filtered_webcal": site.webcal(all_feed) + (f"?{feed_query}" if feed_query else ""),
        "feed_base": site.url(all_feed),
        "feed_day": feed_day or "",
        "storage_key": f"confcal:picks:{conference.slug}",
        "others": others,
    }


def view_what(filters: list[dict[str, Any]], view: View, day: str) -> str:
    """What the feed of this view holds, in words: "the sessions of track Rust on Saturday 1
    February 2025" (schedule.js `viewWhat` says the same as the filters change)."""
    chosen = []
    for f in filters:
        names = dict(f["options"])
        chosen += [f"{f['label'].lower()} {names.get(v, v)}" for v in getattr(view, f["kind"])]
    what = "the sessions" + (" of " + ", ".join(chosen) if chosen else "")
    return what + (f" on {day} only" if day else " of every day")


@dataclass(frozen=True)
class PageFrame:
    """A page without its parts: `schedule.html` rendered with markers where the days' sections
    and the subscribe section go (page_parts.py), and what those parts are."""

    text: str
    depth: int
    days: tuple[str, ...]  # the shown days' slugs, in order
    hidden: frozenset[str]  # ids of the sessions the view's filters hide


def page_frame(
    published: Published,
    site: Site,
    view: View,
    others: OtherConferences = NO_OTHERS,
    day_page: bool = False,
) -> PageFrame:
    return frame_of(page_context(published, site, view, others, day_page), page_depth(day_page))


def page_depth(day_page: bool) -> int:
    """How many directories down the page is: a day's page is `days/{slug}/`."""
    return 2 if day_page else 0


def frame_of(context: dict[str, Any], depth: int) -> PageFrame:
    """The frame `page_context` gave `context` for, at `depth`."""
    text = page_text("schedule.html", depth, context)
    return PageFrame(text, depth, tuple(context["shown_days"]), frozenset(context["hidden"]))


def frame_inputs(context: dict[str, Any]) -> tuple[tuple[str, object], ...]:
    """Everything the frame of `context` is rendered from besides the code and the depth, for a
    key that names the frame without rendering it: each value of the context (plain values and
    frozen dataclasses, whose reprs name them; the hidden ids in order), less the markers, which
    differ per process."""
    return tuple(
        (name, sorted(value) if name == "hidden" else value)
        for name, value in context.items()
        if name not in ("sections", "subscribe")
    )


def page_body(published: Published, site: Site, frame: PageFrame, parts: Fragments | None = None) -> bytes:
    """The page's bytes, joined from its frame, its days' sections and the subscribe section;
    `parts` may supply those it already has (a static build)."""
    return b"".join(page_chunks(published, site, frame, parts))


def page_chunks(published: Published, site: Site, frame: PageFrame, parts: Fragments | None = None) -> Iterator[bytes]:
    """`page_body`'s bytes in pieces, each day's section made or taken from `parts` when its
    turn comes, so a static build holds one section of the all-days page at a time."""
    # Sections with hidden cards belong to one filtered view: never a build's shared copy.
    made = parts if parts is not None and not frame.hidden else Made()
    return _chunks(published, site, frame, parts, made, made.section)


def page_segments(
    published: Published, site: Site, frame: PageFrame, parts: Fragments, later: Section[S]
) -> Iterator[bytes | S]:
    """`page_chunks` of a view that hides nothing, with each day's section after the first
    from `later` (a build's kept part, as it is); the first's now-line is the page's own."""
    if frame.hidden:
        raise ValueError("a filtered view's sections are its own")
    return _chunks(published, site, frame, parts, parts, later)


def _chunks(
    published: Published, site: Site, frame: PageFrame, parts: Fragments | None, made: Fragments, later: Section[S]
) -> Iterator[bytes | S]:
    depth = frame.depth
    # The subscribe section does not depend on the view's filters: always the build's parts.
    both = parts or Made()
    subscribe = partial(both.subscribe, depth, partial(subscribe_section, published, site, depth, parts))
    return page_pieces(frame.text, _sections(published, frame, made, later), subscribe)


def _sections(published: Published, frame: PageFrame, made: Fragments, later: Section[S]) -> Iterator[bytes | S]:
    depth = frame.depth
    for index, slug in enumerate(frame.days):
        make = partial(day_section, published, slug, depth, frame.hidden, made)
        yield later(slug, depth, make) if index else first_section(made.section(slug, depth, make), slug)


def page_representation(
    published: Published,
    site: Site,
    view: View | None = None,
    others: OtherConferences = NO_OTHERS,
    day_page: bool = False,
) -> Representation:
    """The schedule page at the base (`day_page` False: the day in `?day=`, else the first)
    or at `days/{slug}/` (the view's day, two directories down)."""
    chosen = view or View()
    return published.memo(
        _page_key(site, chosen, others, day_page),
        lambda: Representation(
            page_body(published, site, page_frame(published, site, chosen, others, day_page)),
            HTML,
            last_modified(published.schedule.sessions),
            (("content-security-policy", CSP),),
        ),
    )


def _page_key(site: Site, view: View, others: OtherConferences, day_page: bool) -> Hashable:
    # The other conferences are part of the key, not of the snapshot: adding a conference
    # changes this page's links without rebuilding (or re-rendering the feeds of) this one.
    return ("page", site.base_url, view, others, day_page)


async def _answer(request: Request, published: Published, view: View, day_page: bool = False) -> Representation:
    """`page_representation`: from the snapshot's memo when it holds the page, else made in a
    worker thread (a page takes milliseconds to make, longer than the event loop may stop); a
    search or filter, which a client may vary without end, as the app makes what a query asks."""
    context = route_context(request)
    site, others = context.site(request), context.others(request)
    found = published.memoized(_page_key(site, view, others, day_page))
    if isinstance(found, Representation):
        return found
    make = partial(page_representation, published, site, view, others, day_page)
    if view.searched():
        return await context.made(request, make)
    return await anyio.to_thread.run_sync(make)


def page_files(published: Published, site: Site, others: OtherConferences = NO_OTHERS) -> Iterator[tuple[str, bytes]]:
    """For `confcal build`: the page as index.html (its default view: a static host ignores
    the query string), each day's page when there are several days, and every QR code it
    shows, as the server answers them."""
    yield urls.PAGE_FILE, page_representation(published, site, None, others).body
    for slug in day_page_slugs(published):
        page = page_representation(published, site, View(day=slug), others, day_page=True)
        yield urls.day_page(slug) + urls.PAGE_FILE, page.body
    for feed in published.feeds:
        yield urls.feed_qr(feed.path), qr_svg(site.url(feed.path), qr_title(feed)).body
    yield from detail_files(published, site)
    yield urls.SEARCH_INDEX, search_representation(published).body
    yield urls.SERVICE_WORKER, service_worker().body
    yield from static_files()


def day_page_slugs(published: Published) -> list[str]:
    """The days with a page of their own (and "all"): none for a one-day event. The days'
    slugs, without laying out any card (a static build asks this before it knows whether
    any page needs rendering)."""
    slugs = list(day_sessions(published))
    return [*slugs, ALL_DAYS] if len(slugs) > 1 else []


async def page(request: Request) -> Response:
    context = route_context(request)
    items = params.query_items(request.query_params.multi_items())
    rep = await _answer(request, await context.current(request), View.from_params(items))
    return context.send(request, rep, PARAMS)


async def day(request: Request) -> Response:
    context = route_context(request)
    published = await context.current(request)
    slug = request.path_params["day"]
    if slug not in day_page_slugs(published):
        return params.not_found("no such day")
    items = params.query_items(request.query_params.multi_items())
    # The path names the day; a `day` in the query string is ignored.
    view = replace(View.from_params(items), day=slug)
    rep = await _answer(request, published, view, True)
    return context.send(request, rep, PARAMS)


def search_rows(published: Published) -> list[list[str]]:
    return published.memo(("search rows",), lambda: index_rows(day_sessions(published)))


def search_representation(published: Published) -> Representation:
    """`search.json` (search.index_body), once per snapshot."""
    return published.memo(
        ("search index",),
        lambda: Representation(
            index_body(published.conference, search_rows(published)),
            JSON,
            last_modified(published.schedule.sessions),
        ),
    )


# What the pages' script asks to learn whether a server is behind them: the server answers this,
# a static build writes its own (build_pages.page_extras) -- the one file whose bytes differ,
# so a static host's pages offer only what works there (no picks, feeds of one filter only).
SERVED = Representation(b'{"static":false}', JSON, None, (("cache-control", "no-cache"),))


async def host(request: Request) -> Response:
    return route_context(request).send(request, SERVED, params.NO_PARAMS)


async def search_index(request: Request) -> Response:
    context = route_context(request)
    rep = search_representation(await context.current(request))
    return context.send(request, rep, params.NO_PARAMS)


async def static(request: Request) -> Response:
    rep = lookup(request.path_params["name"])
    if rep is None:
        return params.not_found("no such file")
    return route_context(request).send(request, rep, params.NO_PARAMS)


async def worker(request: Request) -> Response:
    return route_context(request).send(request, service_worker(), params.NO_PARAMS)


routes = [
    Route(urls.ROUTE_PAGE, page, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_DAY_PAGE, day, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_SERVICE_WORKER, worker, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_SEARCH_INDEX, search_index, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_HOST, host, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_STATIC_FILE, static, methods=["GET", "HEAD"]),
]


__all__ = ["STATIC", "page_files", "page_representation", "routes", "search_representation", "search_rows"]
