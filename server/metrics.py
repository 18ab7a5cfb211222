"""The process's Prometheus metrics (prometheus_client), for the web app and the jobs alike.

Anything may count through the functions here (`source_refreshed`, `caldav_synced`,
`caldav_written`); `GET /metrics` (server.web.metrics) exposes them. With several server
processes (`confcal serve --workers N`) every process writes its values to files in one folder,
$PROMETHEUS_MULTIPROC_DIR, and the scrape adds them up (prometheus_client's multiprocess mode), so
any worker answers for all of them and for the jobs `serve` runs. `serve` makes that folder; it
must be set before the first metric is created, which is why prometheus_client is imported here
only when the metrics are first used (its value class is chosen at import). A separate
`confcal worker` process counts into the same folder only when given the same
$PROMETHEUS_MULTIPROC_DIR on the same machine; otherwise its counts stay its own.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Request latency buckets, in seconds: a cached feed answers in about a millisecond, a cold
# filtered feed of a large conference in tens of milliseconds. Few of them: each observation walks
# the buckets up to its own, on every request.
LATENCY_BUCKETS = (0.001, 0.005, 0.025, 0.1, 0.5, 2.5)


class Metrics:
    """Every metric confcal keeps, created once per process."""

    def __init__(self) -> None:
        from prometheus_client import Counter, Histogram

        self.requests = Counter(
            "confcal_http_requests",
            "HTTP requests answered, by route template (never the raw path), method and status",
            ["route", "method", "status"],
        )
        self.latency = Histogram(
            "confcal_http_request_duration_seconds",
            "time from request to the last byte handed to the server, by route template",
            ["route"],
            buckets=LATENCY_BUCKETS,
        )
        self.feeds = Counter(
            "confcal_feeds_served",
            "feed answers (200 or 304) by feed kind (all, track, room, ..., personal) and status",
            ["kind", "status"],
        )
        self.process_requests = Counter(
            "confcal_process_requests",
            "HTTP requests answered by each server process",
            ["pid"],
        )
        self.refreshes = Counter(
            "confcal_source_refreshes",
            "source refreshes run here, by outcome (ok, unchanged, refused, error)",
            ["outcome"],
        )
        self.caldav_syncs = Counter(
            "confcal_caldav_syncs",
            "CalDAV syncs run here, by result",
            ["result"],
        )
        self.caldav_writes = Counter(
            "confcal_caldav_writes",
            "events written to CalDAV calendars, by action (create, update, delete)",
            ["action"],
        )
        # Requests are tallied in plain dicts by the event loop that serves them and added to the
        # metrics above by `flush` (every second, and before this process answers a scrape):
        # prometheus_client takes a lock per increment, and per request that cost as much as a
        # tenth of a cached feed's answer. Only the event loop's thread touches the tallies.
        self._process = self.process_requests.labels(str(os.getpid()))
        self._bounds = (*LATENCY_BUCKETS, float("inf"))
        self._requests: dict[tuple[str, str, int], int] = {}
        self._latency: dict[str, list[float]] = {}  # route -> [sum, count per bucket...]
        self._feeds: dict[tuple[str, int], int] = {}

    def request(self, route: str, method: str, status: int, seconds: float) -> None:
        key = (route, method, status)
        self._requests[key] = self._requests.get(key, 0) + 1
        tally = self._latency.get(route)
        if tally is None:
            tally = self._latency[route] = [0.0] * (1 + len(self._bounds))
        tally[0] += seconds
        tally[1 + bisect_left(self._bounds, seconds)] += 1  # the first bucket with seconds <= bound

    def feed(self, kind: str, status: int) -> None:
        self._feeds[(kind, status)] = self._feeds.get((kind, status), 0) + 1

    def flush(self) -> None:
        """Add the tallies to the metrics (from the event loop's thread)."""
        requests, self._requests = self._requests, {}
        latency, self._latency = self._latency, {}
        feeds, self._feeds = self._feeds, {}
        for (route, method, status), count in requests.items():
            self.requests.labels(route, method, str(status)).inc(count)
        self._process.inc(sum(requests.values()))
        for route, tally in latency.items():
            child = self.latency.labels(route)
            # What Histogram.observe does per observation, once per bucket (its value objects;
            # prometheus_client has no public call to add many observations at once).
            child._sum.inc(tally[0])
            for bucket, observed in zip(child._buckets, tally[1:], strict=True):
                if observed:
                    bucket.inc(observed)
        for (kind, status), count in feeds.items():
            self.feeds.labels(kind, str(status)).inc(count)


@cache
def metrics() -> Metrics:
    return Metrics()


def source_refreshed(outcome: str) -> None:
    """Count one source refresh (server.store.sources.Outcome value)."""
    metrics().refreshes.labels(outcome).inc()


def caldav_synced(result: str) -> None:
    """Count one CalDAV sync of one pick set to one calendar, by result (e.g. ok, conflict, error)."""
    metrics().caldav_syncs.labels(result).inc()


def caldav_written(action: str, count: int = 1) -> None:
    """Count events written to a CalDAV calendar by action (create, update, delete)."""
    if count:
        metrics().caldav_writes.labels(action).inc(count)


def multiprocess() -> bool:
    return bool(os.environ.get(MULTIPROC_ENV))


def exposition(extra: list[Any] | None = None) -> tuple[bytes, str]:
    """The text exposition of every metric (all processes' in multiprocess mode), plus `extra`
    collectors, with its content type."""
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    metrics()  # the families exist (at zero) before anything was counted
    registry: CollectorRegistry
    if multiprocess():
        from prometheus_client import CollectorRegistry

        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = REGISTRY
    body = generate_latest(registry)
    for collector in extra or []:
        from prometheus_client import CollectorRegistry

        own = CollectorRegistry()
        own.register(collector)
        body += generate_latest(own)
    return body, CONTENT_TYPE_LATEST
