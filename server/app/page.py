"""The schedule page at `/`: every session as a card, day by day, filters, subscribe links and picks.

Server-rendered (Jinja2, autoescaped: schedule text is third-party input), so browsing and every
link work without JavaScript; static/schedule.js adds day tabs, filtering, search, the viewer's
own time zone and picks. Everything the page loads is served by confcal itself (no CDN, fonts
or analytics), so it works offline and on a conference network; the Content-Security-Policy
says so to the browser as well.

The page is a pure function of a `Published` snapshot and a `Site`, memoized per snapshot like
the API documents, so it is rendered once per schedule change and has a stable ETag.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds.catalogue import FeedKind, day_name
from server.app.cards import days
from server.app.conditional import HTML, Representation
from server.app import urls
from server.app.context import RouteContext
from server.app.links import ConferenceLink, Site
from server.app.published import Feed, Published, last_modified
from server.app.qr import qr_svg, qr_title

# Every load stays on our origin. Inline style attributes place cards on the grid; 'unsafe-eval'
# only lets browser-automation tools (Playwright's wait_for_function) evaluate their predicates,
# and loads nothing. Page scripts are files, never inline.
CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
FILTER_KINDS = (
    ("track", "Track"),
    ("room", "Room"),
    ("level", "Level"),
    ("speaker", "Speaker"),
)

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"

KIND_LABELS = {
    "all": "Everything",
    "day": "By day",
    "track": "By track",
    "room": "By room",
    "level": "By level",
    "kind": "By session type",
    "speaker": "By speaker",
}

_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)
# Templates link through urls.py like the code does: site.path(urls.API_FEEDS).
_env.globals["urls"] = urls


@dataclass(frozen=True)
class Subscription:
    """One feed's ways in: webcal:// to subscribe, the https link to copy, Google, download, QR."""

    kind: str
    slug: str
    name: str
    events: int
    url: str  # absolute
    path: str  # site path, for the download link
    webcal: str
    google: str
    qr: str

    @property
    def anchor(self) -> str:
        return f"sub-{self.kind}" + (f"-{self.slug}" if self.slug else "")


def subscription(feed: Feed, site: Site) -> Subscription:
    return Subscription(
        kind=feed.spec.kind.value,
        slug=feed.spec.slug,
        name=feed.spec.name,
        events=len(feed.sessions),
        url=site.url(feed.path),
        path=site.path(feed.path),
        webcal=site.webcal(feed.path),
        google=site.google(feed.path),
        qr=site.path(urls.feed_qr(feed.path)),
    )


def page_context(
    published: Published, site: Site, others: tuple[ConferenceLink, ...] = ()
) -> dict[str, Any]:
    conference = published.conference
    everything = published.feed(FeedKind.ALL.value, "")
    sessions = list(everything.sessions) if everything else []
    groups: list[dict[str, Any]] = []
    for feed in published.feeds:
        kind = feed.spec.kind.value
        if not groups or groups[-1]["kind"] != kind:
            groups.append(
                {
                    "kind": kind,
                    "label": KIND_LABELS.get(kind, kind.title()),
                    "feeds": [],
                }
            )
        groups[-1]["feeds"].append(subscription(feed, site))
    filters = [
        {
            "kind": kind,
            "label": label,
            "options": [
                (f.spec.slug, f.spec.name)
                for f in published.feeds
                if f.spec.kind.value == kind
            ],
        }
        for kind, label in FILTER_KINDS
    ]
    when = day_name(conference.start_date)
    if conference.end_date != conference.start_date:
        when = f"{when} – {day_name(conference.end_date)}"
    return {
        "conference": conference,
        "when": when,
        "site": site,
        "days": days(conference, sessions, site),
        "total": len(sessions),
        "filters": filters,
        "groups": groups,
        "storage_key": f"confcal:picks:{conference.slug}",
        "others": others,
    }


def render_page(
    published: Published, site: Site, others: tuple[ConferenceLink, ...] = ()
) -> bytes:
    return (
        _env.get_template("schedule.html")
        .render(page_context(published, site, others))
        .encode("utf-8")
    )


def page_representation(
    published: Published, site: Site, others: tuple[ConferenceLink, ...] = ()
) -> Representation:
    # The other conferences are part of the key, not of the snapshot: adding a conference
    # changes this page's links without rebuilding (or re-rendering the feeds of) this one.
    return published.memo(
        ("page", site.base_url, others),
        lambda: Representation(
            render_page(published, site, others),
            HTML,
            last_modified(published.schedule.sessions),
            (("content-security-policy", CSP),),
        ),
    )


def page_files(
    published: Published, site: Site, others: tuple[ConferenceLink, ...] = ()
) -> Iterator[tuple[str, bytes]]:
    """For `confcal build`: the page as index.html and every QR code it shows, as the server
    answers them (a static host has no picks API; the page says so when a pick fails)."""
    yield urls.PAGE_FILE, page_representation(published, site, others).body
    for feed in published.feeds:
        yield urls.feed_qr(feed.path), qr_svg(site.url(feed.path), qr_title(feed)).body


def page_routes(context: RouteContext) -> list[Route]:
    async def page(request: Request) -> Response:
        rep = await anyio.to_thread.run_sync(
            page_representation,
            await context.current(request),
            context.site(request),
            context.others(request),
        )
        return context.send(request, rep)

    return [Route(urls.ROUTE_PAGE, page, methods=["GET", "HEAD"])]
