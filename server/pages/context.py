"""What every route needs from the app, held once on `app.state.context`: `route_context(request)`.

The app owns the snapshots (`current`: the one of the conference the request's path names),
how links are made absolute (`site`: the conference's base), the other conferences the page
links to (`others`) and the conditional GET answer (`send`, i.e. `conditional.respond` with the
app's max-age); the route modules only look things up and build `Representation`s, so caching
and the choice of conference are written once. The web app holds a subclass of this with what
its own APIs need besides (server.web.context).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from server.links import OtherConferences, Site, conference_site
from server.pages import params
from server.snapshot.answers import Answers
from server.snapshot.conditional import Representation, respond
from server.snapshot.live import Live, ScheduleStore
from server.snapshot.published import Published


@dataclass(frozen=True, kw_only=True)
class RouteContext:
    """`base_url` (e.g. https://cal.example.org) makes links absolute to it; without it links
    follow the request's host. `max_age` is what conditional GET answers carry. `answers` keeps
    what `send` answered for the middleware to answer again (server.snapshot.answers)."""

    live: Live
    base_url: str | None = None
    max_age: int = 300
    answers: Answers | None = None

    @property
    def store(self) -> ScheduleStore:
        return self.live.store

    def conference(self, request: Request) -> str | None:
        """The slug the path names (`/c/{slug}/...`), None at the root (the default)."""
        raw = request.path_params.get("conference")
        return None if raw is None else params.conference_segment(raw)

    def root(self, request: Request) -> Site:
        # request.base_url is the app's root even inside the /c/{slug} mount.
        return Site.of(self.base_url or str(request.base_url))

    def site(self, request: Request) -> Site:
        """Links of the conference the path names: the root's for the default conference (so
        its documents are the same bytes at `/x` and `/c/{slug}/x`), else under its base."""
        default = self.live.served.default
        slug = self.conference(request) or default
        root = self.root(request)
        return root if slug is None else conference_site(root, slug, default)

    def others(self, request: Request) -> OtherConferences:
        served = self.live.served
        return served.others(self.conference(request) or served.default, self.root(request))

    def send(self, request: Request, rep: Representation, reads: frozenset[str] | None = None) -> Response:
        """`rep` as the conditional answer; `reads`: the only query parameters it depends on,
        when the route ignores any other."""
        if self.answers is not None:
            # The next same request is answered before routing (server.snapshot.answers).
            read = None if reads is None else partial(params.query_read, reads)
            self.answers.note(request.scope, self.live.served, rep, read)
        return respond(request, rep, max_age=self.max_age)

    async def made(self, request: Request, make: Callable[[], Representation]) -> Representation:
        """`make()` in a worker thread: an answer made for what a request's query asked, which
        a client may vary without end (the web app counts it against the client's budget,
        server.web.render_budget, whose refusal it answers 429)."""
        return await anyio.to_thread.run_sync(make)

    async def current(self, request: Request) -> Published:
        slug = self.conference(request)
        published = self.live.snapshot(slug)
        if published is None:  # no lifespan ran (or it failed), or a new conference
            published = await anyio.to_thread.run_sync(self.live.current, slug)
        return published


def route_context(request: Request) -> RouteContext:
    """The context of the app serving `request`."""
    context: RouteContext = request.app.state.context
    return context
