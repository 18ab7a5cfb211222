"""How fast one receiving domain gets messages: a token bucket per domain, in memory, per job
process (the relay sees the sum of the processes).

Receiving providers throttle a sender per domain (Gmail and Outlook answer 421/451 to a burst
from a new sender), and every message of a schedule change goes out at once: a bucket of
`per_minute` messages, earned back at `per_minute` a minute, keeps a burst to one provider under
its limit, and a job that finds its domain's bucket empty comes back when a token is earned
rather than holding a worker thread. Written here rather than taken from a library: it is a
dozen lines, and the rate-limit libraries on PyPI sleep in the caller, which a job must not.
"""

from __future__ import annotations

import threading


class DomainPace:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._buckets: dict[str, tuple[float, float]] = {}  # domain -> (tokens, at)
        self._lock = threading.Lock()

    def take(self, domain: str, now: float) -> float | None:
        """Spend one of `domain`'s tokens: None when allowed, else the seconds until one is earned.
        `now` is a monotonic clock's reading."""
        rate = self.per_minute / 60.0
        with self._lock:
            tokens, since = self._buckets.get(domain, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + max(0.0, now - since) * rate)
            if tokens >= 1.0:
                self._buckets[domain] = (tokens - 1.0, now)
                return None
            self._buckets[domain] = (tokens, now)
            return (1.0 - tokens) / rate
