"""`create_app`: the Starlette application serving feeds, session downloads, the API, the schedule
page at `/` (page.py, qr.py) and personal picks (picks_api.py).

Handlers only look things up in the current `Published` snapshot and hand a `Representation` to
`conditional.respond`; path segments go through `params` first. Bad input is a 400/404 with a short
text body; an exception escaping a handler is a bug.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from feeds.errors import FeedsError
from server.app import params
from server.app.api import feeds_representation, sessions_representation
from server.app.conditional import Representation, respond
from server.app.context import RouteContext
from server.app.links import Site
from server.app.live import Live, NothingPublished, ScheduleStore, utc_now
from server.app.page import STATIC, page_routes
from server.app.picks_api import picks_routes
from server.app.published import Published
from server.app.qr import qr_routes
from server.store.picks import PickStore, pick_store_for

METHODS = ["GET", "HEAD"]


def create_app(
    store: ScheduleStore,
    *,
    base_url: str | None = None,
    max_age: int = 300,
    poll_interval: float = 2.0,
    seed: Callable[[], None] | None = None,
    clock: Callable[[], datetime] = utc_now,
    picks: PickStore | None = None,
) -> Starlette:
    """The app for `store`. `base_url` (e.g. https://cal.example.org) makes links absolute to it;
    without it links follow the request's host. `seed` runs once if the store is empty (serve
    passes the demo ingest). The lifespan polls `store.version()` every `poll_interval` seconds.
    Personal picks are kept in `picks`, by default in the store's own database."""
    live = Live(store, base_url=base_url, seed=seed, clock=clock)

    def site(request: Request) -> Site:
        return Site.of(base_url or str(request.base_url))

    def send(request: Request, rep: Representation) -> Response:
        return respond(request, rep, max_age=max_age)

    async def current() -> Published:
        published = live.snapshot
        if published is None:  # no lifespan ran (or it failed): build on first use
            published = await anyio.to_thread.run_sync(lambda: live.current)
        return published

    async def document(
        request: Request, make: Callable[[Published, Site], Representation]
    ) -> Response:
        # Rendered once per snapshot and base URL, off the event loop: the sessions document of
        # a large conference is megabytes of JSON.
        rep = await anyio.to_thread.run_sync(make, await current(), site(request))
        return send(request, rep)

    async def api_feeds(request: Request) -> Response:
        return await document(request, feeds_representation)

    async def api_sessions(request: Request) -> Response:
        return await document(request, sessions_representation)

    async def feed(request: Request) -> Response:
        address = params.feed_address(request.path_params, ".ics")
        if address is None:
            return params.not_found("no such feed")
        return await _feed(request, *address)

    async def _feed(request: Request, kind: str, slug: str) -> Response:
        published = await current()
        feed = published.feed(kind, slug)
        if feed is None:
            return params.not_found("no such feed")
        items = params.query_items(request.query_params.multi_items())
        if not items:
            return send(request, feed.representation)
        try:
            rep = await anyio.to_thread.run_sync(published.filtered, feed, items)
        except FeedsError as exc:
            return params.bad_request(str(exc))
        return send(request, rep)

    async def session(request: Request) -> Response:
        session_id = params.id_segment(request.path_params["name"], ".ics")
        published = await current()
        found = published.session(session_id)
        if found is None:
            return params.not_found("no such session")
        return send(request, published.session_download(found))

    async def bad_path(request: Request, exc: Exception) -> Response:
        return params.bad_request(str(exc))

    async def unavailable(request: Request, exc: Exception) -> Response:
        return PlainTextResponse(
            "503 Service Unavailable: no schedule published yet\n", status_code=503
        )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # An empty store is served as 503 until an ingest lands; the watcher picks that up.
        await anyio.to_thread.run_sync(live.refresh)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(live.watch, poll_interval)
            yield
            tasks.cancel_scope.cancel()

    # The schedule page at "/", QR codes, picks and personal feeds (page.py, qr.py, picks_api.py).
    context = RouteContext(current=current, site=site, send=send)
    routes = [
        *page_routes(context),
        *qr_routes(context),
        *picks_routes(context, picks if picks is not None else pick_store_for(store)),
        Route("/api/feeds", api_feeds, methods=METHODS),
        Route("/api/feeds.json", api_feeds, methods=METHODS),
        Route("/api/sessions", api_sessions, methods=METHODS),
        Route("/api/sessions.json", api_sessions, methods=METHODS),
        Route("/feeds/{name}", feed, methods=METHODS),
        Route("/feeds/{kind}/{name}", feed, methods=METHODS),
        Route("/sessions/{name}", session, methods=METHODS),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={params.BadPath: bad_path, NothingPublished: unavailable},
    )
    app.state.live = live
    return app
