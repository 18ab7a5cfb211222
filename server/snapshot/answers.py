"""What the routes answered, kept per request so the next same request is answered before routing.

A page, a document or a download is made once per snapshot and memoized there, but each request
for it still went through the router (every route tried in turn, the conference routes twice),
a worker thread to look the memo up, the path and query checks and the other conferences' links:
more than serving its bytes. So when a route answers a GET or HEAD with a `Representation` of
the current snapshots (`RouteContext.send`), it is noted here by what the answer depends on
besides the snapshots: scheme, Host, root path, path and query string. The innermost middleware
(server.web.fast_feeds) answers the same request again from here, through the same conditional
answer, with the route and path parameters noted for the metrics.

Only the routes in `ROUTES` are noted: each answers from the snapshot alone. Personal answers
(pick sets, whose content changes without a new snapshot) never are. Everything noted is let go
when the snapshots are swapped (`Live.served` is another object: a new version, a conference
made or let go), and a request that began before a swap is not noted; the answers noted are
bounded (`LIMIT`) against a client inventing query strings. Used from the event loop's thread
only.

A note holds its answer and the snapshots it was made with weakly: what a snapshot keeps is for
its memo and its feeds' byte limit to decide (server.snapshot.published), and an answer they let
go of (a large conference's all.ics past the limit, a page pushed out of the memo, the previous
version's pages while the new one warms up) goes with them, and the next same request the
route's way.
"""

from __future__ import annotations

import weakref
from collections.abc import MutableMapping
from typing import Any

from feeds import urls
from server.snapshot.conditional import Representation
from server.snapshot.live import Served

# The route templates whose answers depend on the request's scheme, Host, path and query and on
# the snapshots only.
ROUTES = frozenset(
    {
        urls.ROUTE_PAGE,
        urls.ROUTE_DAY_PAGE,
        urls.ROUTE_SESSION_PAGE,
        urls.ROUTE_SPEAKER_PAGE,
        urls.ROUTE_SESSION,
        urls.ROUTE_FEED,
        urls.ROUTE_FEED_KIND,
        urls.ROUTE_FEED_INDEX,
        urls.ROUTE_API_FEEDS,
        urls.ROUTE_API_SESSIONS,
        urls.ROUTE_SCHEDULE_XML,
        urls.ROUTE_SCHEDULE_JSON,
        urls.ROUTE_QR,
        urls.ROUTE_QR_KIND,
        urls.ROUTE_CHANGES,
        urls.ROUTE_CHANGES_ATOM,
        urls.ROUTE_API_CHANGES,
        urls.ROUTE_STATIC_FILE,
        urls.ROUTE_SERVICE_WORKER,
        urls.ROUTE_TRACKS,
        urls.ROUTE_ROOMS,
        urls.ROUTE_TRACK_PAGE,
        urls.ROUTE_ROOM_PAGE,
        urls.ROUTE_SPEAKERS,
    }
)
# Answers noted at most: only their keys and weak references stay, but a client may invent
# query strings without end.
LIMIT = 4096
# Where the middleware leaves (the Served it saw, the request's key) for `note`.
SCOPE_KEY = "confcal.answer"

Key = tuple[str, bytes, str, str, bytes]
# (representation, route, path parameters, slug of the conference)
Answer = tuple[Representation, Any, dict[str, str], str | None]
_Note = tuple["weakref.ref[Representation]", Any, dict[str, str], str | None]


class Answers:
    def __init__(self, limit: int = LIMIT) -> None:
        self._limit = limit
        self._served: weakref.ref[Served] | None = None
        self._found: dict[Key, _Note] = {}

    def _current(self, served: Served) -> bool:
        return self._served is not None and self._served() is served

    def get(self, served: Served, key: Key) -> Answer | None:
        """The answer noted for `key` while `served` was current, if it is still held."""
        if not self._current(served):
            self._served, self._found = weakref.ref(served), {}
            return None
        found = self._found.get(key)
        if found is None:
            return None
        rep = found[0]()
        if rep is None:
            del self._found[key]
            return None
        return rep, found[1], found[2], found[3]

    def note(self, scope: MutableMapping[str, Any], current: Served, rep: Representation) -> None:
        """Note `rep` as the answer to the request of `scope`, when its route is one of `ROUTES`,
        it is not personal and the snapshots are those the request began with (`current`)."""
        began = scope.get(SCOPE_KEY)
        route = scope.get("route")
        if began is None or rep.personal or getattr(route, "path", None) not in ROUTES:
            return
        served, key = began
        if served is not current or not self._current(served):
            return
        if len(self._found) >= self._limit:
            self._found = {}
        params = dict(scope.get("path_params", {}))
        self._found[key] = (weakref.ref(rep), route, params, params.get("conference") or served.default)

    def __len__(self) -> int:
        """How many answers noted are still held."""
        return sum(1 for found in self._found.values() if found[0]() is not None)
