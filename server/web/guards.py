"""The HTTP-side limits of one server, as `create_app` takes them (`confcal serve` sets them from
its options), and the middleware they put around every route.

Inside the outermost layer `create_app` puts around everything (server.web.access_log: the
access log, the metrics and the headers every response carries, server.web.headers): only when
links follow the request's Host (no base URL), the Host allow list (server.web.hosts).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.middleware import Middleware

from server.web.hosts import LOCAL_NAMES, AllowedHosts, allowed_entries
from server.web.pick_upkeep import INTERVAL_S
from server.web.ratelimit import DEFAULT_RATE, RENDER_RATE, Rate


@dataclass(frozen=True)
class Guards:
    # Host names answered without a base URL; None answers any (for tests and embedding: the
    # command always passes a list).
    allowed_hosts: tuple[str, ...] | None = None
    pick_rate: Rate = DEFAULT_RATE
    render_rate: Rate = RENDER_RATE  # CPU seconds of filtered feeds made per client
    upkeep_interval: float = INTERVAL_S

    def middleware(self, base_url: str | None) -> list[Middleware]:
        if base_url is None and self.allowed_hosts is not None:
            return [Middleware(AllowedHosts, allowed=allowed_entries(self.allowed_hosts))]
        return []


def default_hosts(listen: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The names `confcal serve --host LISTEN` answers: loopback names, the listening address
    and any `--allowed-host`."""
    return (*LOCAL_NAMES, listen, *extra)
