"""The app as `confcal serve` runs it: built inside each server process from settings the command
passes through the environment, so `--workers N` can start N processes that each open their own
store connection pool and build their own app (granian imports `server.web.factory:from_environment`
by name in every worker).

What each process holds by itself: the published snapshots (each polls the store's version), the
pick-set rate-limit buckets, the metrics (added up across processes at scrape, server.metrics).
What they share: only the store. The demo seed and the background jobs are not here: `serve` does
them once, in the process that starts the workers (server.commands.serve). Each app does run its own
pick-set upkeep (server.web.pick_upkeep): read notes and the expiry purge are idempotent
conditional writes, so N processes doing them is N times the same small statement, never a
double delete.
"""

from __future__ import annotations

import os
from typing import Any, cast

from starlette.applications import Starlette
from starlette.types import ASGIApp
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from server.errors import ServerError
from server.jobs.triggers import SyncTriggers
from server.store import Store
from server.web.app import create_app
from server.web.app_settings import SETTINGS_ENV, AppSettings
from server.web.guards import Guards
from server.web.ratelimit import Rate


class NoAppSettings(ServerError):
    """The factory ran without the settings `confcal serve` passes (started by hand)."""


def build(settings: AppSettings) -> Starlette:
    store = Store.open(settings.db)
    # Each process queues a calendar's sync at once when a picks change or an attach wants it,
    # for whichever process runs the jobs (this serve's, or `confcal worker`s).
    sync = SyncTriggers.on_demand(store)

    def shutdown() -> None:
        sync.close()
        store.close()

    guards = Guards(
        allowed_hosts=settings.allowed_hosts,
        pick_rate=Rate(burst=settings.pick_burst, per_hour=settings.pick_sets_per_hour),
        render_rate=Rate(burst=settings.render_burst, per_hour=settings.render_seconds_per_hour),
    )
    return create_app(
        store,
        base_url=settings.base_url,
        max_age=settings.max_age,
        poll_interval=settings.poll,
        default=settings.default,
        guards=guards,
        sync=sync,
        on_shutdown=shutdown,
    )


def from_environment() -> ASGIApp:
    """The server's app factory: the settings `confcal serve` put in $CONFCAL_SERVE_APP. Behind a
    trusted proxy, the client address and scheme come from its X-Forwarded-For and
    X-Forwarded-Proto (uvicorn's middleware for it: granian has none of its own)."""
    text = os.environ.get(SETTINGS_ENV)
    if not text:
        raise NoAppSettings(f"${SETTINGS_ENV} is not set: start the server with `confcal serve`")
    settings = AppSettings.from_json(text)
    app = build(settings)
    if settings.trusted_proxies:
        # uvicorn and Starlette type the same ASGI callables differently.
        return cast(ASGIApp, ProxyHeadersMiddleware(cast(Any, app), trusted_hosts=list(settings.trusted_proxies)))
    return app
