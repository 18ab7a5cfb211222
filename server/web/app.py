"""`create_app`: the Starlette application serving, for every conference in the store, its feeds,
session downloads, API, schedule page (page.py, qr.py) and personal picks (picks_api.py).

Every conference's routes live under its base `/c/{slug}/` (urls.py); the default conference's
are also served at the root, byte for byte what a single-conference server answered before, so
subscribed feed URLs keep working. `/api/conferences` lists them all.

The routes are module-level lists in their own modules, reading what they need from the one
`AppContext` on `app.state.context` (server.web.context); this module only builds the context
and assembles routes, lifespan, error answers and middleware. Bad input is a 400/404 with a
short text body; an exception escaping a handler is a bug.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from feeds import urls
from server.caldav.target import allow_private_calendars
from server.pages import changes, detail_pages, feed_index, index_pages, page, params, qr
from server.snapshot.answers import Answers
from server.snapshot.feed_renders import FeedRenders
from server.snapshot.live import Live, NoSuchConference, NothingPublished, ScheduleStore, utc_now
from server.snapshot.pick_cache import PickCache
from server.store.caldav_targets import CaldavTargets
from server.store.picks import PickStore, pick_store_for
from server.web import caldav_api, feeds_api, health, invitations_api, metrics, picks_api
from server.web.access_log import AccessLog
from server.web.calendars import Calendars
from server.web.context import AppContext
from server.web.fast_feeds import FeedFastPath
from server.web.guards import Guards
from server.web.health import HealthCollector
from server.web.metrics import flush_every
from server.web.pick_upkeep import PickUpkeep
from server.web.ratelimit import TokenBuckets
from server.web.render_budget import OverBudget, RenderBudget
from server.web.sync_requests import NoteOnly, SyncRequests

# Each conference's routes (urls.py), mounted at the root for the default conference and under
# /c/{slug} for every one.
CONFERENCE_ROUTES: list[BaseRoute] = [
    *page.routes,
    *detail_pages.routes,
    *index_pages.routes,
    *feed_index.routes,
    *qr.routes,
    *changes.routes,
    *picks_api.routes,
    *caldav_api.routes,
    *invitations_api.routes,
    *feeds_api.routes,
    Mount(urls.ROUTE_STATIC, app=StaticFiles(directory=page.STATIC), name="static"),
]
ROUTES: list[BaseRoute] = [
    *feeds_api.root_routes,
    *CONFERENCE_ROUTES,
    Mount(urls.CONFERENCE_MOUNT, routes=CONFERENCE_ROUTES),
    # Last: routing tries routes in order, and feeds should not pay for these.
    *health.routes,
    *metrics.routes,
]


async def bad_path(request: Request, exc: Exception) -> Response:
    return params.bad_request(str(exc))


async def unknown_conference(request: Request, exc: Exception) -> Response:
    return params.not_found("no such conference")


async def over_budget(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, OverBudget)
    return params.too_many(str(exc), exc.wait)


async def unavailable(request: Request, exc: Exception) -> Response:
    return PlainTextResponse("503 Service Unavailable: no schedule published yet\n", status_code=503)


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
    timer: Callable[[], float] = time.monotonic,
) -> Starlette:
    """The app for `store`. `base_url` (e.g. https://cal.example.org) makes links absolute to it;
    without it links follow the request's host. `seed` runs once if the store is empty (serve
    passes the demo ingest). The lifespan polls `store.changes()` every `poll_interval` seconds.
    Personal picks are kept in `picks`, by default in the store's own database. The root paths
    serve the conference `default` (slug), else the one ingested first. `guards` are the
    HTTP-side limits: allowed Host names, the pick-set creation rate, upkeep interval.
    `on_shutdown` runs when the lifespan ends (the factory closes the store it opened). `sync`
    is how a picks change asks for a CalDAV sync of the set's calendar (default: noted in the
    store for the jobs' sweep; the factory passes triggers that also queue the job at once).
    `timer` is the monotonic clock idle snapshots are let go by (server.snapshot.live).

    Everything an app holds is per process (snapshots, rate-limit buckets, metrics); several
    server processes share only the store (server.web.factory builds one app in each)."""
    live = Live(store, base_url=base_url, default=default, seed=seed, clock=clock, timer=timer)
    pick_store = picks if picks is not None else pick_store_for(store)
    answers = Answers()
    context = AppContext(
        live=live,
        answers=answers,
        base_url=base_url,
        max_age=max_age,
        picks=pick_store,
        upkeep=PickUpkeep(pick_store, clock),
        creations=TokenBuckets(guards.pick_rate),
        filtered_renders=RenderBudget(guards.render_rate),
        recent_picks=PickCache(),
        renders=FeedRenders(),
        # Calendars synced with pick sets live beside the picks (server.web.caldav_api).
        caldav_targets=CaldavTargets(pick_store.engine),
        calendars=Calendars(pick_store.engine, allow_private=allow_private_calendars()),
        sync=sync if sync is not None else NoteOnly(pick_store.engine),
        clock=clock,
        collectors=(HealthCollector(store, clock),),
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # An empty store is served as 503 until an ingest lands; the watcher picks that up.
        await anyio.to_thread.run_sync(live.refresh)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(live.watch, poll_interval)
            tasks.start_soon(context.upkeep.watch, guards.upkeep_interval)
            tasks.start_soon(context.recent_picks.watch, pick_store)
            tasks.start_soon(flush_every)
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()
        if on_shutdown is not None:
            on_shutdown()

    app = Starlette(
        routes=ROUTES,
        lifespan=lifespan,
        exception_handlers={
            params.BadPath: bad_path,
            NothingPublished: unavailable,
            NoSuchConference: unknown_conference,
            OverBudget: over_budget,
        },
        # The access log and metrics outermost, so the latency they record covers every other
        # layer; the feed fast path innermost, so the guards still see its requests
        # (fast_feeds.py).
        middleware=[
            Middleware(AccessLog),
            *guards.middleware(base_url),
            Middleware(
                FeedFastPath,
                live=live,
                max_age=max_age,
                picks=context.recent_picks,
                upkeep=context.upkeep,
                answers=answers,
            ),
        ],
    )
    app.state.context = context
    # What tests and the feed fast path reach for by name.
    app.state.live = live
    app.state.upkeep = context.upkeep
    app.state.pick_cache = context.recent_picks
    app.state.feed_renders = context.renders
    app.state.answers = answers
    return app
