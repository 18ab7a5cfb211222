"""The one context the web app holds on `app.state.context`: the pages' `RouteContext` and what
the feeds, picks, CalDAV and operations routes need besides. `app_context(request)` gives it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from starlette.requests import Request

from server.pages.context import RouteContext
from server.snapshot.conditional import Representation
from server.snapshot.feed_renders import FeedRenders
from server.snapshot.live import utc_now
from server.snapshot.pick_cache import PickCache
from server.store.caldav_targets import CaldavTargets
from server.store.picks import PickStore
from server.web.calendars import Calendars
from server.web.pick_upkeep import PickUpkeep
from server.web.probe_pool import ProbePool
from server.web.ratelimit import Rate, TokenBuckets
from server.web.render_budget import RenderBudget
from server.web.sync_requests import SyncRequests

# Each attach makes the server connect to a server the attendee names: a few tries to get a URL
# or password right, not a way to keep the server's check threads busy.
ATTACHES_PER_CLIENT = Rate(burst=20, per_hour=120)
ATTACHES_PER_PICKSET = Rate(burst=5, per_hour=30)


@dataclass(frozen=True, kw_only=True)
class AppContext(RouteContext):
    """`renders`: feeds a request gets to before the warm-up, rendered in a worker thread once
    each. `recent_picks`: the pick sets read or written, shared by the picks routes and the feed
    fast path. `caldav_targets`, `calendars`: the calendars synced with pick sets, beside the
    picks. `sync`: how an attach or a picks change asks for a CalDAV sync. `creations`: the
    pick-set creation rate. `collectors`: what `/metrics` reads besides the request counts.
    `probes`: the threads calendar checks run on. `attaches_per_client`, `attaches_per_pickset`:
    how often one address, and one pick set, may ask for a calendar check. `filtered_renders`:
    how much making filtered feeds one address may cost (server.web.render_budget)."""

    picks: PickStore
    upkeep: PickUpkeep
    creations: TokenBuckets
    recent_picks: PickCache
    renders: FeedRenders
    caldav_targets: CaldavTargets
    calendars: Calendars
    sync: SyncRequests
    clock: Callable[[], datetime] = utc_now
    collectors: tuple[Any, ...] = ()
    probes: ProbePool = field(default_factory=ProbePool)
    attaches_per_client: TokenBuckets = field(default_factory=lambda: TokenBuckets(ATTACHES_PER_CLIENT))
    attaches_per_pickset: TokenBuckets = field(default_factory=lambda: TokenBuckets(ATTACHES_PER_PICKSET))
    filtered_renders: RenderBudget = field(default_factory=RenderBudget)

    async def made(self, request: Request, make: Callable[[], Representation]) -> Representation:
        return await self.filtered_renders.make(request, make)


def app_context(request: Request) -> AppContext:
    """The context of the app serving `request`."""
    context: AppContext = request.app.state.context
    return context
