"""The routes answered from a conference's snapshot as documents: catalogue feeds (with their
filters), session downloads, `/api/feeds`, `/api/sessions`, the exports for conference apps and,
at the root only, `/api/conferences`.

Handlers only look things up in the current `Published` snapshot of the conference the path
names and hand a `Representation` to `conditional.respond`; path segments go through `params`
first. Bad input is a 400/404 with a short text body.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from feeds.errors import FeedsError
from feeds.exports import EXPORTERS, Exporter
from server.links import Site
from server.pages import params
from server.snapshot.api import feeds_representation, sessions_representation
from server.snapshot.conditional import Representation
from server.snapshot.exports import EXPORT_ROUTES, export_representation
from server.snapshot.published import Published
from server.web.context import app_context

METHODS = ["GET", "HEAD"]


async def _document(request: Request, make: Callable[[Published, Site], Representation]) -> Response:
    # Rendered once per snapshot and base URL, off the event loop: the sessions document of a
    # large conference is megabytes of JSON.
    context = app_context(request)
    rep = await anyio.to_thread.run_sync(make, await context.current(request), context.site(request))
    return context.send(request, rep, params.NO_PARAMS)


async def api_conferences(request: Request) -> Response:
    context = app_context(request)
    live = context.live
    served = live.served
    if not served.summaries:
        await anyio.to_thread.run_sync(live.refresh)
        served = live.served
    return context.send(request, served.conferences(context.root(request)), params.NO_PARAMS)


async def api_feeds(request: Request) -> Response:
    return await _document(request, feeds_representation)


async def api_sessions(request: Request) -> Response:
    return await _document(request, sessions_representation)


async def feed(request: Request) -> Response:
    address = params.feed_address(request.path_params, ".ics")
    if address is None:
        return params.not_found("no such feed")
    kind, slug = address
    context = app_context(request)
    published = await context.current(request)
    found = published.feed(kind, slug)
    if found is None:
        return params.not_found("no such feed")
    items = params.query_items(request.query_params.multi_items())
    if not items:
        return context.send(request, await context.renders.representation(found))
    try:
        rep = published.filtered_held(found, items)
    except FeedsError as exc:
        return params.bad_request(str(exc))
    if rep is None:
        # Made for this query: what it costs is counted against the client's budget.
        rep = await context.made(request, partial(published.filtered, found, items))
    return context.send(request, rep)


async def session(request: Request) -> Response:
    context = app_context(request)
    session_id = params.id_segment(request.path_params["name"], ".ics")
    published = await context.current(request)
    found = published.session(session_id)
    if found is None:
        return params.not_found("no such session")
    return context.send(request, published.session_download(found), params.NO_PARAMS)


def _export(exporter: Exporter) -> Callable[[Request], object]:
    async def export(request: Request) -> Response:
        context = app_context(request)
        published = await context.current(request)
        rep = await anyio.to_thread.run_sync(export_representation, published, context.site(request), exporter)
        return context.send(request, rep, params.NO_PARAMS)

    return export


# Each conference's (mounted at the root for the default conference and under /c/{slug}).
routes = [
    *(Route(path, _export(EXPORTERS[name]), methods=METHODS) for path, name in EXPORT_ROUTES.items()),
    Route(urls.ROUTE_API_FEEDS, api_feeds, methods=METHODS),
    Route(urls.json_twin(urls.ROUTE_API_FEEDS), api_feeds, methods=METHODS),
    Route(urls.ROUTE_API_SESSIONS, api_sessions, methods=METHODS),
    Route(urls.json_twin(urls.ROUTE_API_SESSIONS), api_sessions, methods=METHODS),
    Route(urls.ROUTE_FEED, feed, methods=METHODS),
    Route(urls.ROUTE_FEED_KIND, feed, methods=METHODS),
    Route(urls.ROUTE_SESSION, session, methods=METHODS),
]

# The server's, at the root only.
root_routes = [
    Route(urls.ROUTE_CONFERENCES, api_conferences, methods=METHODS),
    Route(urls.json_twin(urls.ROUTE_CONFERENCES), api_conferences, methods=METHODS),
]
