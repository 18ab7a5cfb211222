"""How much one client may do: a token bucket per client address, in memory.

Each client starts with `burst` tokens and earns one more every `3600 / per_hour` seconds, up to
`burst` again; a request finding its bucket empty is answered 429 with Retry-After (RFC 6585 §4)
saying when the next token is earned. A pick-set creation or a calendar attach spends a token
(`take`) and gives it back when it fails; what a client's queries asked to be made is charged,
once made, the CPU seconds it took (`wait`, `charge`: server.web.render_budget). Reading and
replacing a set are not limited: they create nothing.

The client is the address the connection came from; `confcal serve --trusted-proxy` makes the
ASGI server take it from X-Forwarded-For when, and only when, the connection comes from one of
those proxies (anyone else could write any address there). IPv6 clients are counted per /64,
the block one subscriber line usually gets, or one machine could pick a fresh address for
every request.

The state is per process: several server processes each allow the full rate. It is bounded:
past MAX_CLIENTS buckets, full ones are forgotten first (they carry no state), then the least
recently used.
Pure apart from the dict: the caller passes the monotonic `now`.
"""

from __future__ import annotations

import ipaddress
import math
from collections import OrderedDict
from dataclasses import dataclass

MAX_CLIENTS = 100_000


@dataclass(frozen=True)
class Rate:
    burst: float
    per_hour: float

    @property
    def seconds_per_token(self) -> float:
        return 3600.0 / self.per_hour


# A conference network puts hundreds of attendees behind one NAT address, each creating one
# set; a script creating thousands an hour is refused.
DEFAULT_RATE = Rate(burst=60, per_hour=600)

# Seconds of CPU making searches and filtered feeds (server.web.render_budget): ten at once, then
# a tenth of one core's time. A calendar polling its feeds, or a room of attendees behind one
# address each subscribing to their own filters, stays within it.
RENDER_RATE = Rate(burst=10.0, per_hour=360.0)


def client_key(address: str | None) -> str:
    """The bucket a client address counts against: the address, or its /64 for IPv6."""
    if not address:
        return "unknown"
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address  # a Unix socket path or a name: used as is
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


class TokenBuckets:
    def __init__(self, rate: Rate = DEFAULT_RATE, max_clients: int = MAX_CLIENTS) -> None:
        self.rate = rate
        self.max_clients = max_clients
        # key -> (tokens, monotonic time of that count), least recently used first
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str, now: float) -> float | None:
        """Spend one token of `key`'s bucket: None when allowed, else the seconds until the
        next token (at least 1, as a whole number of seconds suits Retry-After)."""
        tokens = self._level(key, now)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            self._buckets.move_to_end(key)
            self._bound(now)
            return None
        wait = (1.0 - tokens) * self.rate.seconds_per_token
        return float(max(1, math.ceil(wait)))

    def wait(self, key: str, now: float) -> float | None:
        """None while `key`'s bucket holds anything, else the seconds until it does (at least 1):
        for a cost known only once paid (`charge`), which may take the bucket below empty."""
        tokens = self._level(key, now)
        if tokens > 0.0:
            return None
        # Rounded first, so that a float a hair over a whole second does not say one more.
        return float(max(1, math.ceil(round(-tokens * self.rate.seconds_per_token, 6))))

    def charge(self, key: str, now: float, amount: float) -> None:
        """Spend `amount` of `key`'s bucket, below empty if it costs more than is there."""
        self._buckets[key] = (self._level(key, now) - amount, now)
        self._buckets.move_to_end(key)
        self._bound(now)

    def give_back(self, key: str, now: float) -> None:
        """Return the token a creation took when it failed (a locked or full store): only what
        was created counts, or an outage would leave every client refused once it ends."""
        tokens = self._level(key, now)
        self._buckets[key] = (min(float(self.rate.burst), tokens + 1.0), now)

    def _level(self, key: str, now: float) -> float:
        found = self._buckets.get(key)
        if found is None:
            return float(self.rate.burst)
        tokens, since = found
        earned = max(0.0, now - since) / self.rate.seconds_per_token
        return min(float(self.rate.burst), tokens + earned)

    def _bound(self, now: float) -> None:
        if len(self._buckets) <= self.max_clients:
            return
        full = [k for k in self._buckets if self._level(k, now) >= self.rate.burst]
        for key in full:
            del self._buckets[key]
        # Down to 90%, so the scan above runs once per max_clients/10 new clients at most.
        while len(self._buckets) > self.max_clients * 9 // 10:
            self._buckets.popitem(last=False)

    def __len__(self) -> int:
        return len(self._buckets)
