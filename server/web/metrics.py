"""Request metrics (server.metrics) and `GET /metrics`, the Prometheus text exposition.

Requests are counted by route template (`/c/{conference}/feeds/{kind}/{name}`), never by raw
path: a path may hold a pick token, and raw paths would make one series per URL anyone sends.
A path no route matched is `unmatched`. Requests are timed and counted by the access log's
layer (server.web.access_log.AccessLog), which times each request once for both. Counting costs
a dict update per request; the counts reach the metrics every second (flush_every) and at each
scrape. The share of 304s is
`sum(rate(confcal_http_requests_total{status="304"}[5m])) / sum(rate(confcal_http_requests_total[5m]))`.
"""

from __future__ import annotations

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Scope

from feeds import urls
from server.metrics import Metrics, exposition, metrics
from server.web.context import app_context

UNMATCHED = "unmatched"
_FEED_ROUTES = {urls.ROUTE_FEED: "all", urls.ROUTE_FEED_KIND: None, urls.ROUTE_PERSONAL: "personal"}


def route_template(scope: Scope) -> str:
    """The template of the route that answered `scope` (set by Starlette's router), with the
    conference mount in front when the request went through it."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    if not isinstance(path, str):
        return UNMATCHED
    if "conference" in scope.get("path_params", ()):
        return urls.CONFERENCE_MOUNT + path
    return path


def count_request(counts: Metrics, scope: Scope, status: int, seconds: float) -> None:
    """Count one answered request of `scope` (the access log's layer times it once for both,
    server.web.access_log.AccessLog)."""
    route = getattr(scope.get("route"), "path", None)
    counts.request(route_template(scope), scope["method"], status, seconds)
    if route in _FEED_ROUTES and status in (200, 304):
        _count_feed(counts, scope, route, status)


def _count_feed(metrics: Metrics, scope: Scope, route: str, status: int) -> None:
    params = scope.get("path_params", {})
    kind = _FEED_ROUTES[route] or str(params.get("kind"))
    if kind == "personal" and not str(params.get("name", "")).endswith(".ics"):
        return  # the personal feed's QR code shares the route
    metrics.feed(kind, status)


FLUSH_INTERVAL_S = 1.0


async def flush_every(interval: float = FLUSH_INTERVAL_S) -> None:
    """Hand this process's request tallies to the metrics every `interval` seconds, so that the
    other server processes' scrapes see them (server.metrics)."""
    current = metrics()
    while True:
        await anyio.sleep(interval)
        current.flush()


async def metrics_endpoint(request: Request) -> Response:
    metrics().flush()  # this process's own requests, up to this one
    collectors = list(app_context(request).collectors)
    body, content_type = await anyio.to_thread.run_sync(exposition, collectors)
    return Response(body, media_type=content_type, headers={"Cache-Control": "no-store"})


routes = [Route(urls.ROUTE_METRICS, metrics_endpoint, methods=["GET", "HEAD"])]
