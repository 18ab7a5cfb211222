"""What the schedule page, QR and picks routes need from `create_app`, passed in as one value.

The app owns the snapshot (`current`), how links are made absolute (`site`) and the conditional
GET answer (`send`, i.e. `conditional.respond` with the app's max-age); the route modules only
look things up and build `Representation`s, so caching is written once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from server.app.conditional import Representation
from server.app.links import Site
from server.app.published import Published


@dataclass(frozen=True)
class RouteContext:
    current: Callable[[], Awaitable[Published]]
    site: Callable[[Request], Site]
    send: Callable[[Request, Representation], Response]
