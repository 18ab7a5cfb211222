"""`GET /healthz`: can this process read its store, and how fresh are the served sources.

200 with `"status": "ok"` when the store answers; 503 with `"status": "unavailable"` and the
store's one-line error when it does not (a load balancer or Docker's health check then stops
sending traffic here). The sources part reports, from the store (so for every job worker, not
only this process): how many sources there are, the age of the newest refresh, and how many are
overdue, i.e. due more than OVERDUE_AFTER ago and not being refreshed; those are information
for alerting, not a reason for 503: restarting the web process does not fetch a source.
`Cache-Control: no-store`, since a cached health answer is a wrong one. Also the process id, so
the answers of several `--workers` can be told apart.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import anyio.to_thread
from sqlalchemy import Engine
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from feeds import urls
from server.errors import ServerError
from server.snapshot.live import ScheduleStore
from server.store.sources import SourceStore
from server.web.context import app_context

# A source's refresh is lost or stuck once it is this late (jobs re-queue after 30 s).
OVERDUE_AFTER = timedelta(minutes=5)


@dataclass(frozen=True)
class Health:
    store_error: str | None
    version: int
    sources: int
    last_refresh: datetime | None  # newest refresh of any source
    overdue: int


def check(store: ScheduleStore, now: datetime) -> Health:
    """Ask the store (blocking I/O: run it in a thread)."""
    try:
        version = store.version()
        found = _sources(store)
    except ServerError as exc:
        return Health(str(exc), 0, 0, None, 0)
    fetched = [s.last_fetch for s in found if s.last_fetch is not None]
    late = now - OVERDUE_AFTER
    return Health(None, version, len(found), max(fetched, default=None), sum(s.next_run < late for s in found))


def _sources(store: ScheduleStore) -> tuple[Any, ...]:
    engine = getattr(store, "engine", None)
    return SourceStore(engine).all() if isinstance(engine, Engine) else ()


def document(health: Health, now: datetime, pid: int) -> tuple[int, dict[str, Any]]:
    """The status code and JSON body for `health`."""
    if health.store_error is not None:
        return 503, {"status": "unavailable", "store": {"ok": False, "error": health.store_error}, "pid": pid}
    age = None if health.last_refresh is None else round((now - health.last_refresh).total_seconds(), 3)
    return 200, {
        "status": "ok",
        "store": {"ok": True, "version": health.version},
        "sources": {"count": health.sources, "last_refresh_age_seconds": age, "overdue": health.overdue},
        "pid": pid,
    }


async def healthz(request: Request) -> Response:
    context = app_context(request)
    now = context.clock()
    health = await anyio.to_thread.run_sync(check, context.store, now)
    status, body = document(health, now, os.getpid())
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})


routes = [Route(urls.ROUTE_HEALTH, healthz, methods=["GET", "HEAD"])]


class HealthCollector:
    """The same facts as Prometheus gauges, read from the store at each scrape."""

    def __init__(self, store: ScheduleStore, clock: Callable[[], datetime]) -> None:
        self.store, self.clock = store, clock

    def collect(self) -> Any:
        from prometheus_client.core import GaugeMetricFamily

        now = self.clock()
        health = check(self.store, now)
        yield GaugeMetricFamily(
            "confcal_store_up", "1 if this process can read its store", value=health.store_error is None
        )
        yield GaugeMetricFamily("confcal_sources", "sources the server keeps fresh", value=health.sources)
        yield GaugeMetricFamily("confcal_sources_overdue", "sources whose refresh is late", value=health.overdue)
        if health.last_refresh is not None:
            age = (now - health.last_refresh).total_seconds()
            yield GaugeMetricFamily(
                "confcal_source_last_refresh_age_seconds", "seconds since any source was last refreshed", value=age
            )
