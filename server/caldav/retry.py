"""Retrying storage requests with exponential backoff.

Only requests that are safe to repeat go through here - and every request the pusher sends is:
GET and PROPFIND read; each PUT carries If-None-Match: * or If-Match: <etag>, and each DELETE
If-Match: <etag> (RFC 7232 section 3). If the first attempt took effect and only its answer was
lost, the repeat fails its precondition (412) or finds nothing (404) instead of writing twice,
and the executor turns that into "already done" after checking the content. A PUT or DELETE
without a precondition would not be safe to repeat blindly; the pusher never sends one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from server.caldav.errors import ServerFailed, ServerUnreachable, TransientError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """`attempts` tries in all; the n-th wait is base * 2**n (jittered, capped at max_delay),
    or the server's Retry-After when it sent one (also capped)."""

    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    sleep: Callable[[float], None] = field(default=time.sleep)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_delay)
        # Jitter spreads out clients that all failed at the same moment (e.g. a server restart).
        backoff: float = min(self.max_delay, self.base_delay * 2**attempt)
        return backoff * random.uniform(0.5, 1.0)


DEFAULT_RETRY = RetryPolicy()
NO_WAIT = RetryPolicy(sleep=lambda _seconds: None)


def with_retry(request: Callable[[], T], policy: RetryPolicy) -> T:
    """Run an idempotent `request`, retrying TransientError; the last one becomes
    ServerUnreachable (connection failures) or ServerFailed (5xx/429)."""
    for attempt in range(policy.attempts):
        try:
            return request()
        except TransientError as exc:
            if attempt + 1 >= policy.attempts:
                final = ServerUnreachable if exc.unreachable else ServerFailed
                raise final(f"{exc} (gave up after {policy.attempts} attempts)") from exc
            policy.sleep(policy.delay(attempt, exc.retry_after))
    raise AssertionError("unreachable: attempts must be >= 1")
