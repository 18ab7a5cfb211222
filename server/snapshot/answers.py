"""What the routes answered, kept per request so the next same request is answered before routing.

A page, a document or a download is made once per snapshot and memoized there, but each request
for it still went through the router (every route tried in turn, the conference routes twice), a
worker thread to look the memo up, the path and query checks and the other conferences' links:
more than serving its bytes. So when a route answers a GET or HEAD with a `Representation` of
the current snapshots (`RouteContext.send`), it is noted here by what the answer depends on
besides the snapshots: scheme, Host, root path, path and query string, or of the query string
only the parameters the route reads when it ignores the rest (`Read`): every page and document
reads a few or none, and is asked with campaign and click tags that differ per visitor; only the
feeds, which refuse a parameter they do not know, are noted by the whole query string. The
innermost middleware (server.web.fast_feeds) answers the same request again from here, through
the same conditional answer, with the route and path parameters noted for the metrics.

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
from collections.abc import Callable, Hashable, MutableMapping
from typing import Any

from feeds import urls
from server.snapshot.conditional import Representation
from server.snapshot.live import Served

# The route templates whose answers depend on the request's scheme, Host, path and query and on
# the snapshots only (or, for the list of conferences, on the list they were served with).
ROUTES = frozenset(
    {
        urls.ROUTE_CONFERENCES,
        urls.json_twin(urls.ROUTE_CONFERENCES),
        urls.ROUTE_PAGE,
        urls.ROUTE_DAY_PAGE,
        urls.ROUTE_SESSION_PAGE,
        urls.ROUTE_SPEAKER_PAGE,
        urls.ROUTE_SESSION,
        urls.ROUTE_FEED,
        urls.ROUTE_FEED_KIND,
        urls.ROUTE_FEED_INDEX,
        urls.ROUTE_API_FEEDS,
        urls.json_twin(urls.ROUTE_API_FEEDS),
        urls.ROUTE_API_SESSIONS,
        urls.json_twin(urls.ROUTE_API_SESSIONS),
        urls.ROUTE_SCHEDULE_XML,
        urls.ROUTE_SCHEDULE_JSON,
        urls.ROUTE_QR,
        urls.ROUTE_QR_KIND,
        urls.ROUTE_CHANGES,
        urls.ROUTE_CHANGES_ATOM,
        urls.ROUTE_API_CHANGES,
        urls.json_twin(urls.ROUTE_API_CHANGES),
        urls.ROUTE_STATIC_FILE,
        urls.ROUTE_SERVICE_WORKER,
        urls.ROUTE_SEARCH_INDEX,
        urls.ROUTE_HOST,
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

# (scheme, Host, root path, path, query string)
Key = tuple[str, bytes, str, str, bytes]
# A route's reading of a query string: the parameters its answer depends on, or None when it
# refuses the query (answered 400 by the route).
Read = Callable[[bytes], Hashable | None]
# (representation, route, path parameters, slug of the conference)
Answer = tuple[Representation, Any, dict[str, str], str | None]
_Note = tuple["weakref.ref[Representation]", Any, dict[str, str], str | None]
_Place = tuple[str, bytes, str, str]


class Answers:
    def __init__(self, limit: int = LIMIT) -> None:
        self._limit = limit
        self._served: weakref.ref[Served] | None = None
        self._found: dict[tuple[str, bytes, str, str, Hashable], _Note] = {}
        # Places whose route ignores some query parameters: their answers are noted by what
        # `Read` keeps of the query, so a request with a campaign or click tag never seen before
        # is answered from the note of the same view.
        self._reads: dict[_Place, Read] = {}

    def _current(self, served: Served) -> bool:
        return self._served is not None and self._served() is served

    def _forget(self) -> None:
        self._found, self._reads = {}, {}

    def get(self, served: Served, key: Key) -> Answer | None:
        """The answer noted for `key` while `served` was current, if it is still held."""
        if not self._current(served):
            self._served = weakref.ref(served)
            self._forget()
            return None
        noted = self._noted(key)
        found = None if noted is None else self._found.get(noted)
        if noted is None or found is None:
            return None
        rep = found[0]()
        if rep is None:
            del self._found[noted]
            return None
        return rep, found[1], found[2], found[3]

    def _noted(self, key: Key) -> tuple[str, bytes, str, str, Hashable] | None:
        """The key `key`'s answer is noted under: itself, or at a place whose route reads some
        of the query's parameters, what it reads (None: the route would refuse the query)."""
        read = self._reads.get(key[:4])
        if read is None:
            return key
        query = read(key[4])
        return None if query is None else (*key[:4], query)

    def note(
        self, scope: MutableMapping[str, Any], current: Served, rep: Representation, read: Read | None = None
    ) -> None:
        """Note `rep` as the answer to the request of `scope`, when its route is one of `ROUTES`,
        it is not personal and the snapshots are those the request began with (`current`);
        `read`: what of a query string the answer depends on, when the route ignores the rest."""
        began = scope.get(SCOPE_KEY)
        route = scope.get("route")
        if began is None or rep.personal or getattr(route, "path", None) not in ROUTES:
            return
        served, key = began
        if served is not current or not self._current(served):
            return
        if len(self._found) >= self._limit or len(self._reads) >= self._limit:
            self._forget()
        if read is not None:
            self._reads[key[:4]] = read
        noted = self._noted(key)
        if noted is None:
            return
        params = dict(scope.get("path_params", {}))
        self._found[noted] = (weakref.ref(rep), route, params, params.get("conference") or served.default)

    def __len__(self) -> int:
        """How many answers noted are still held."""
        return sum(1 for found in self._found.values() if found[0]() is not None)
