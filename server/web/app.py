"""`create_app`: the Starlette application serving, for every conference in the store, its feeds,
session downloads, API, schedule page (page.py, qr.py) and personal picks (picks_api.py).

Every conference's routes live under its base `/c/{slug}/` (urls.py); the default conference's
are also served at the root, byte for byte what a single-conference server answered before, so
subscribed feed URLs keep working. `/api/conferences` lists them all.

Handlers only look things up in the current `Published` snapshot of the conference the path
names and hand a `Representation` to `conditional.respond`; path segments go through `params`
first. Bad input is a 400/404 with a short text body; an exception escaping a handler is a bug.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from feeds import urls
from feeds.errors import FeedsError
from server.caldav.target import allow_private_calendars
from server.links import ConferenceLink, Site, conference_site, other_conferences
from server.pages import params
from server.pages.changes import change_notes, changes_routes
from server.pages.feed_index import feed_index_routes
from server.pages.page import STATIC, page_routes
from server.pages.qr import qr_routes
from server.snapshot.api import (
    conferences_representation,
    feeds_representation,
    sessions_representation,
)
from server.snapshot.conditional import Representation, respond
from server.snapshot.context import RouteContext
from server.snapshot.exports import export_routes
from server.snapshot.feed_renders import FeedRenders
from server.snapshot.live import (
    Live,
    NoSuchConference,
    NothingPublished,
    ScheduleStore,
    utc_now,
)
from server.snapshot.pick_cache import PickCache
from server.snapshot.published import Published
from server.store.caldav_targets import CaldavTargets
from server.store.picks import PickStore, pick_store_for
from server.web.access_log import AccessLog
from server.web.caldav_api import caldav_routes
from server.web.calendars import Calendars
from server.web.fast_feeds import FeedFastPath
from server.web.guards import Guards
from server.web.health import HealthCollector, health_endpoint
from server.web.metrics import flush_every, metrics_endpoint
from server.web.pick_upkeep import PickUpkeep
from server.web.picks_api import picks_routes
from server.web.ratelimit import TokenBuckets
from server.web.sync_requests import NoteOnly, SyncRequests

METHODS = ["GET", "HEAD"]


def create_app(
    store: ScheduleStore,
    *,
    base_url: str | None = None,
    max_age: int = 300,
    poll_interval: float = 0.5,
    seed: Callable[[], None] | None = None,
    clock: Callable[[], datetime] = utc_now,
    picks: PickStore | None = None,
    default: str | None = None,
    guards: Guards = Guards(),
    on_shutdown: Callable[[], None] | None = None,
    sync: SyncRequests | None = None,
) -> Starlette:
    """The app for `store`. `base_url` (e.g. https://cal.example.org) makes links absolute to it;
    without it links follow the request's host. `seed` runs once if the store is empty (serve
    passes the demo ingest). The lifespan polls `store.version()` every `poll_interval` seconds.
    Personal picks are kept in `picks`, by default in the store's own database. The root paths
    serve the conference `default` (slug), else the one ingested first. `guards` are the
    HTTP-side limits: allowed Host names, the pick-set creation rate, upkeep interval.
    `on_shutdown` runs when the lifespan ends (the factory closes the store it opened). `sync`
    is how a picks change asks for a CalDAV sync of the set's calendar (default: noted in the
    store for the jobs' sweep; the factory passes triggers that also queue the job at once).

    Everything an app holds is per process (snapshots, rate-limit buckets, metrics); several
    server processes share only the store (server.web.factory builds one app in each)."""
    live = Live(store, base_url=base_url, default=default, seed=seed, clock=clock)
    # Feeds a request gets to before the warm-up: rendered in a worker thread, once each.
    renders = FeedRenders()
    pick_store = picks if picks is not None else pick_store_for(store)
    upkeep = PickUpkeep(pick_store, clock)
    # Pick sets read or written, shared by the picks routes and the feed fast path.
    recent_picks = PickCache()
    # Calendars synced with pick sets live beside the picks (server.web.caldav_api).
    caldav_targets = CaldavTargets(pick_store.engine)
    calendars = Calendars(pick_store.engine, allow_private=allow_private_calendars())
    # CalDAV syncs a picks change (or an attach) asks for: `serve` passes the jobs' triggers.
    sync_requests = sync if sync is not None else NoteOnly(pick_store.engine)

    def conference(request: Request) -> str | None:
        """The slug the path names (`/c/{slug}/...`), None at the root (the default)."""
        raw = request.path_params.get("conference")
        return None if raw is None else params.conference_segment(raw)

    def root(request: Request) -> Site:
        # request.base_url is the app's root even inside the /c/{slug} mount.
        return Site.of(base_url or str(request.base_url))

    def site(request: Request) -> Site:
        """Links of the conference the path names: the root's for the default conference (so
        its documents are the same bytes at `/x` and `/c/{slug}/x`), else under its base."""
        default = live.served.default
        slug = conference(request) or default
        return root(request) if slug is None else conference_site(root(request), slug, default)

    def others(request: Request) -> tuple[ConferenceLink, ...]:
        served = live.served
        this = conference(request) or served.default
        return other_conferences(served.summaries, this, root(request))

    def send(request: Request, rep: Representation) -> Response:
        return respond(request, rep, max_age=max_age)

    async def current(request: Request) -> Published:
        slug = conference(request)
        published = live.snapshot(slug)
        if published is None:  # no lifespan ran (or it failed), or a new conference
            published = await anyio.to_thread.run_sync(live.current, slug)
        return published

    async def document(request: Request, make: Callable[[Published, Site], Representation]) -> Response:
        # Rendered once per snapshot and base URL, off the event loop: the sessions document of
        # a large conference is megabytes of JSON.
        rep = await anyio.to_thread.run_sync(make, await current(request), site(request))
        return send(request, rep)

    async def api_conferences(request: Request) -> Response:
        served = live.served
        if not served.summaries:
            await anyio.to_thread.run_sync(live.refresh)
            served = live.served
        return send(request, conferences_representation(served.summaries, root(request)))

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
        published = await current(request)
        feed = published.feed(kind, slug)
        if feed is None:
            return params.not_found("no such feed")
        items = params.query_items(request.query_params.multi_items())
        if not items:
            return send(request, await renders.representation(feed))
        try:
            rep = await anyio.to_thread.run_sync(published.filtered, feed, items)
        except FeedsError as exc:
            return params.bad_request(str(exc))
        return send(request, rep)

    async def session(request: Request) -> Response:
        session_id = params.id_segment(request.path_params["name"], ".ics")
        published = await current(request)
        found = published.session(session_id)
        if found is None:
            return params.not_found("no such session")
        return send(request, published.session_download(found))

    async def bad_path(request: Request, exc: Exception) -> Response:
        return params.bad_request(str(exc))

    async def unknown_conference(request: Request, exc: Exception) -> Response:
        return params.not_found("no such conference")

    async def unavailable(request: Request, exc: Exception) -> Response:
        return PlainTextResponse("503 Service Unavailable: no schedule published yet\n", status_code=503)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # An empty store is served as 503 until an ingest lands; the watcher picks that up.
        await anyio.to_thread.run_sync(live.refresh)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(live.watch, poll_interval)
            tasks.start_soon(upkeep.watch, guards.upkeep_interval)
            tasks.start_soon(recent_picks.watch, pick_store)
            tasks.start_soon(flush_every)
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()
        if on_shutdown is not None:
            on_shutdown()

    # Each conference's routes (urls.py), mounted at the root for the default conference and
    # under /c/{slug} for every one.
    context = RouteContext(current=current, site=site, send=send, others=others)
    conference_routes: list[BaseRoute] = [
        *page_routes(context),
        *feed_index_routes(context),
        *qr_routes(context),
        *export_routes(context),
        *changes_routes(context, store),
        *picks_routes(
            context,
            pick_store,
            upkeep=upkeep,
            creations=TokenBuckets(guards.pick_rate),
            notes=lambda published: change_notes(published, store),
            picks_changed=sync_requests.picks_changed,
            recent=recent_picks,
        ),
        *caldav_routes(
            context, pick_store, caldav_targets, calendars, clock=clock, sync_requested=sync_requests.attached
        ),
        Route(urls.ROUTE_API_FEEDS, api_feeds, methods=METHODS),
        Route(urls.json_twin(urls.ROUTE_API_FEEDS), api_feeds, methods=METHODS),
        Route(urls.ROUTE_API_SESSIONS, api_sessions, methods=METHODS),
        Route(urls.json_twin(urls.ROUTE_API_SESSIONS), api_sessions, methods=METHODS),
        Route(urls.ROUTE_FEED, feed, methods=METHODS),
        Route(urls.ROUTE_FEED_KIND, feed, methods=METHODS),
        Route(urls.ROUTE_SESSION, session, methods=METHODS),
        Mount(urls.ROUTE_STATIC, app=StaticFiles(directory=STATIC), name="static"),
    ]
    routes: list[BaseRoute] = [
        Route(urls.ROUTE_CONFERENCES, api_conferences, methods=METHODS),
        Route(urls.json_twin(urls.ROUTE_CONFERENCES), api_conferences, methods=METHODS),
        *conference_routes,
        Mount(urls.CONFERENCE_MOUNT, routes=conference_routes),
        # Last: routing tries routes in order, and feeds should not pay for these.
        Route(urls.ROUTE_HEALTH, health_endpoint(store, clock), methods=METHODS),
        Route(urls.ROUTE_METRICS, metrics_endpoint([HealthCollector(store, clock)]), methods=METHODS),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            params.BadPath: bad_path,
            NothingPublished: unavailable,
            NoSuchConference: unknown_conference,
        },
        # The access log and metrics outermost, so the latency they record covers every other
        # layer; the feed fast path innermost, so the guards still see its requests
        # (fast_feeds.py).
        middleware=[
            Middleware(AccessLog),
            *guards.middleware(base_url),
            Middleware(FeedFastPath, live=live, max_age=max_age, picks=recent_picks, upkeep=upkeep),
        ],
    )
    app.state.live = live
    app.state.upkeep = upkeep
    app.state.pick_cache = recent_picks
    app.state.feed_renders = renders
    return app
