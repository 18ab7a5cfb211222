"""Catalogue feeds answered before routing.

A subscribed calendar app asks for the same few feed URLs all day, mostly to get a 304. Through
Starlette's router every such request is matched against each route of the app in turn (the
conference routes twice: at the root and under the `/c/{slug}` mount) and passes the exception
handlers, which cost more than the answer itself. This middleware, the innermost of the guards
(so the access log, the security headers and the Host allow list still see every request),
answers a GET or HEAD without a query string whose path names a catalogue feed of a current
snapshot: `/feeds/all.ics`, `/feeds/{kind}/{slug}.ics`, and the same under `/c/{slug}`; and a
personal feed `/p/{token}.ics` whose set is in the pick cache (server.snapshot.pick_cache) and whose
feed this snapshot has made already (a set the cache does not hold, a first request, goes the
route's way, which reads and renders); and any request a route of `answers.ROUTES` answered the
same way with the same snapshots (server.snapshot.answers: pages, documents, downloads). A catalogue feed not rendered yet goes the route's way too,
so it is rendered in a worker thread (server.snapshot.feed_renders), never on the event loop. It looks
the feed up by its exact name and answers through `conditional.answer`, the function behind the
feed route's `respond`, so the bytes and headers are the route's (without building a Starlette
Request and Response). Anything else (filters, an unknown or
malformed name, no snapshot yet) goes to the router as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from feeds import urls
from server.snapshot.answers import SCOPE_KEY, Answers
from server.snapshot.conditional import Representation, answer, request_headers, send_answer
from server.snapshot.live import Live, Served
from server.snapshot.pick_cache import PickCache
from server.snapshot.published import Feed, Published
from server.web.pick_upkeep import PickUpkeep
from server.web.picks_api import personal_key


@dataclass(frozen=True)
class _Template:
    """What the metrics read of a route: its path template."""

    path: str


_ALL_ROUTE = _Template(urls.ROUTE_FEED)
_KIND_ROUTE = _Template(urls.ROUTE_FEED_KIND)
_PERSONAL_ROUTE = _Template(urls.ROUTE_PERSONAL)
_FEEDS = "/feeds/"
_PERSONAL = "/p/"
_CONFERENCE = "/c/"
_SUFFIX = ".ics"


class FeedFastPath:
    def __init__(
        self,
        app: ASGIApp,
        live: Live,
        max_age: int,
        picks: PickCache | None = None,
        upkeep: PickUpkeep | None = None,
        answers: Answers | None = None,
    ) -> None:
        self.app = app
        self.answers = answers
        self.live = live
        self.max_age = max_age
        self.picks = picks
        self.upkeep = upkeep
        # Catalogue feed paths already looked up in `served`, with what the scope gets: the same
        # few URLs are asked for all day. Only paths naming a feed go in, so at most every
        # feed's two paths; emptied when the snapshots are swapped.
        self._served: Served | None = None
        self._found: dict[str, tuple[Feed, _Template, dict[str, str], Published]] = {}
        self._timer = live.timer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            rep = None
            if not scope.get("query_string") and not scope.get("root_path"):
                rep = self.lookup(scope["path"], scope)
            if rep is None and self.answers is not None:
                rep = self._answered(scope)
            if rep is not None:
                accept_encoding, if_none_match, if_modified_since = request_headers(scope["headers"])
                status, headers, body = answer(
                    rep,
                    max_age=self.max_age,
                    head=scope["method"] == "HEAD",
                    accept_encoding=accept_encoding,
                    if_none_match=if_none_match,
                    if_modified_since=if_modified_since,
                )
                await send_answer(send, status, headers, body)
                return
        await self.app(scope, receive, send)

    def _answered(self, scope: Scope) -> Representation | None:
        """What a route answered to this same request with the current snapshots
        (server.snapshot.answers), else None, with what the route needs to note its answer."""
        assert self.answers is not None
        served = self.live.served
        host = next((value for name, value in scope["headers"] if name == b"host"), b"")
        if not host:  # no Host header: links follow the address the request came to
            host = repr(scope.get("server")).encode()
        key = (scope["scheme"], host, scope.get("root_path", ""), scope["path"], scope.get("query_string", b""))
        found = self.answers.get(served, key)
        if found is None:
            scope[SCOPE_KEY] = (served, key)
            return None
        rep, route, params, slug = found
        published = None if slug is None else served.snapshots.get(slug)
        if published is not None:
            published.used = self._timer()  # asked for: not idle (server.snapshot.live)
        scope["route"], scope["path_params"] = route, params
        return rep

    def lookup(self, path: str, scope: Scope | None = None) -> Representation | None:
        """The representation the feed route would answer for `path`, when it names a
        catalogue feed of a current snapshot exactly; else None. With `scope`, a hit notes
        the route and path parameters there as Starlette's router would (for the metrics)."""
        served = self.live.served
        if served is not self._served:
            self._served, self._found = served, {}
        known = self._found.get(path)
        # Rendered when it went in, unless let go since (server.snapshot.published.Rendered):
        # then the route makes it again off the event loop.
        rep = None if known is None else known[0].made()
        if known is not None and rep is not None:
            known[3].used = self._timer()  # asked for: not idle (server.snapshot.live)
            if scope is not None:
                scope["route"], scope["path_params"] = known[1], known[2]
            return rep
        slug = served.default
        params = {}
        full_path = path
        if path.startswith(_CONFERENCE):
            slug, slash, path = path[len(_CONFERENCE) :].partition("/")
            path = slash + path
            params["conference"] = slug
        if slug is None or not path.endswith(_SUFFIX):
            return None
        published = served.snapshots.get(slug)
        if published is None:
            return None
        published.used = self._timer()
        if path.startswith(_PERSONAL):
            return self._personal(published, path[len(_PERSONAL) : -len(_SUFFIX)], params, scope)
        if not path.startswith(_FEEDS):
            return None
        name = path[len(_FEEDS) : -len(_SUFFIX)]
        kind, slash, feed_slug = name.partition("/")
        if not slash:
            kind, feed_slug = ("all", "") if name == "all" else ("", "")
        elif "/" in feed_slug or kind == "all":
            return None
        feed = published.feed(kind, feed_slug)
        made = None if feed is None else feed.made()
        if feed is None or made is None:
            return None  # not made yet: the route renders it off the event loop (feed_renders.py)
        last = path.rsplit("/", 1)[1]
        if slash:
            route, params = _KIND_ROUTE, {**params, "kind": kind, "name": last}
        else:
            route, params = _ALL_ROUTE, {**params, "name": last}
        self._found[full_path] = (feed, route, params, published)
        if scope is not None:
            scope["route"], scope["path_params"] = route, params
        return made

    def _personal(
        self, published: Published, token: str, params: dict[str, str], scope: Scope | None
    ) -> Representation | None:
        """The personal feed of `token` when its set is in the pick cache and its feed was made
        for this snapshot already; else None (the route reads the set and renders it)."""
        if self.picks is None or "/" in token:
            return None
        pickset = self.picks.get(token)
        if pickset is None or pickset.conference != published.conference.slug:
            return None
        rep = published.personal(personal_key(pickset))
        if rep is None:
            return None
        if self.upkeep is not None:
            self.upkeep.note_read(token)
        if scope is not None:
            scope["route"], scope["path_params"] = _PERSONAL_ROUTE, {**params, "name": token + _SUFFIX}
        return rep
