"""A page per feed kind too long to list on the schedule pages: `subscribe/{kind}/` (urls.py).

A kind with more than `subscribe.LISTED_FEEDS` feeds (the speakers of a large conference) is
shown on the schedule pages as its group's heading and one link to here, where every feed of
the kind is listed with the entries the schedule pages list the other groups with
(`_feed_group.html`, its entries `detail_html.feed_entries`), under the same intro and reminder
choice. Rendered from the snapshot like the other pages and memoized per snapshot; `confcal
build` writes the same bytes (site_build.py), keyed on the feeds, so a rebuild remakes it only
when a feed or its number of events changed.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import anyio.to_thread
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from server.links import Site
from server.pages import params
from server.pages.context import route_context
from server.pages.detail_html import feed_entry
from server.pages.detail_pages import heading, html_page
from server.pages.render import page_text
from server.pages.subscribe import indexed_kinds, subscribe_groups, subscription
from server.snapshot.conditional import Representation
from server.snapshot.published import Feed, Published

DEPTH = 2  # subscribe/{kind}/ is two directories below the conference's base
# Where the entries go in the rendered page: no schedule text can hold a NUL.
_ENTRIES = Markup(f"\x00entries-{secrets.token_hex(16)}\x00")


def feed_index_representation(published: Published, site: Site, kind: str) -> Representation:
    """The page listing every feed of `kind`, one of `indexed_kinds(published)`."""

    def build() -> Representation:
        return html_page(b"".join(feed_index_pieces(published, site, kind)), published.schedule.sessions)

    return published.memo(("feed index", site.base_url, kind), build)


def feed_index_pieces(published: Published, site: Site, kind: str) -> list[bytes]:
    """`feed_index_representation`'s body in pieces: the page up to its first feed, each feed's
    entry, the rest; a build writes them as they are, where joining the speakers' page of a large
    conference (tens of megabytes) took several times its size at once."""
    before, feeds, after = feed_index_frame(published, site, kind)
    return [before, *(feed_index_entry(feed, site) for feed in feeds), after]


def feed_index_frame(published: Published, site: Site, kind: str) -> tuple[bytes, Sequence[Feed], bytes]:
    """The page up to its first feed's entry, the kind's feeds in the page's order, the rest."""
    group = next(g for g in subscribe_groups(published, site) if g["kind"] == kind)
    conference = published.conference
    context = {
        **heading(published),
        "description": f"{group['link']} of {conference.name}, to subscribe to in your calendar app.",
        "heading": group["link"],
        # The group as a schedule page lists a kind it has room for.
        "group": {**group, "index": "", "counts": True},
        "entries": _ENTRIES,
    }
    before, after = page_text("feed_index.html", DEPTH, context).split(_ENTRIES)
    return before.encode(), group["sources"], after.encode()


def feed_index_entry(feed: Feed, site: Site) -> bytes:
    """A feed's entry on its kind's page, with its number of events."""
    return feed_entry(subscription(feed, site), "../" * DEPTH, True).encode()


def feed_index_paths(published: Published) -> list[tuple[str, str]]:
    """(kind, site-relative file) of each kind's page, for `confcal build`."""
    return [(kind, urls.feed_index(kind) + urls.PAGE_FILE) for kind in sorted(indexed_kinds(published))]


async def feed_index(request: Request) -> Response:
    context = route_context(request)
    kind = request.path_params["kind"]
    published = await context.current(request)
    # Only a kind the schedule pages link here: a known kind with few feeds is listed there,
    # and anything else is no kind at all.
    if kind not in indexed_kinds(published):
        return params.not_found("no such list of feeds")
    rep = await anyio.to_thread.run_sync(feed_index_representation, published, context.site(request), kind)
    return context.send(request, rep, params.NO_PARAMS)


routes = [Route(urls.ROUTE_FEED_INDEX, feed_index, methods=["GET", "HEAD"])]
