"""What the route modules (page, QR, picks) need from `create_app`, passed in as one value.

The app owns the snapshots (`current`: the one of the conference the request's path names),
how links are made absolute (`site`: the conference's base), the other conferences the page
links to (`others`) and the conditional GET answer (`send`, i.e. `conditional.respond` with the
app's max-age); the route modules only look things up and build `Representation`s, so caching
and the choice of conference are written once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from server.links import ConferenceLink, Site
from server.snapshot.conditional import Representation
from server.snapshot.published import Published


@dataclass(frozen=True)
class RouteContext:
    current: Callable[[Request], Awaitable[Published]]
    site: Callable[[Request], Site]
    send: Callable[[Request, Representation], Response]
    others: Callable[[Request], tuple[ConferenceLink, ...]] = lambda request: ()
