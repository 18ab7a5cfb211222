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

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from server.links import Site
from server.pages import params
from server.pages.context import route_context
from server.pages.detail_pages import heading, html_page
from server.pages.render import render
from server.pages.subscribe import group_context, indexed_kinds, kind_group
from server.snapshot.conditional import Representation
from server.snapshot.published import Published

DEPTH = 2  # subscribe/{kind}/ is two directories below the conference's base


def feed_index_representation(published: Published, site: Site, kind: str) -> Representation:
    """The page listing every feed of `kind`, one of `indexed_kinds(published)`."""

    def build() -> Representation:
        group = kind_group(published, site, kind)
        conference = published.conference
        context = {
            **heading(published),
            "description": f"{group['link']} of {conference.name}, to subscribe to in your calendar app.",
            "heading": group["link"],
            # The group as a schedule page lists a kind it has room for.
            **group_context({**group, "index": "", "counts": True}, DEPTH),
        }
        return html_page(render("feed_index.html", DEPTH, context), published.schedule.sessions)

    return published.memo(("feed index", site.base_url, kind), build)


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
    return context.send(request, rep)


routes = [Route(urls.ROUTE_FEED_INDEX, feed_index, methods=["GET", "HEAD"])]
