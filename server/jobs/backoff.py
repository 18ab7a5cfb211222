"""What a failed CalDAV sync does next: retry later, stop until the attendee gives new
credentials, or stop until the next change. Pure: the caller passes the random draw in.

Two layers of retry, on purpose:
- inside one sync the executor repeats a failed request a few times within seconds
  (server.caldav.retry), which covers a dropped connection or one 503 during a restart;
- when the sync as a whole still fails on a transient condition (5xx, 429, network), the job
  gives its worker back and the target is tried again after `Backoff.delay`: exponential, with
  jitter so that the thousand calendars on one provider that failed together do not come back
  together, and never sooner than the server's Retry-After (RFC 9110 section 10.2.3).
After `Backoff.attempts` failed syncs in a row the target stops retrying and keeps the error;
the next picks change or schedule version tries again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from sqlalchemy.exc import OperationalError

from server.caldav.errors import (
    AuthenticationFailed,
    CalDAVError,
    ServerFailed,
    ServerUnreachable,
    TransientError,
)
from server.errors import StoreError


class Verdict(StrEnum):
    RETRY = "retry"  # transient: try again after a backoff
    NEEDS_CREDENTIALS = "needs_credentials"  # the server refused the login: stop until new ones
    FAILED = "failed"  # any other refusal (403, 404, not a calendar, ...): stop until a change


@dataclass(frozen=True)
class Judged:
    verdict: Verdict
    retry_after: float | None = None  # seconds, when the server said (429/503 Retry-After)


def judge(exc: BaseException) -> Judged:
    """How a sync that raised `exc` goes on."""
    if isinstance(exc, AuthenticationFailed):
        return Judged(Verdict.NEEDS_CREDENTIALS)
    transient = _transient_cause(exc)
    if transient is not None:
        return Judged(Verdict.RETRY, transient.retry_after)
    if isinstance(exc, ServerUnreachable | StoreError | OperationalError):
        # A store that is busy or unreachable for now is as transient as a network error.
        return Judged(Verdict.RETRY)
    return Judged(Verdict.FAILED)


def _transient_cause(exc: BaseException) -> TransientError | None:
    """The TransientError behind `exc`: itself, or what the executor's own retries gave up on
    (it raises ServerFailed/ServerUnreachable *from* the last TransientError)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, TransientError):
            return seen
        if not isinstance(seen, ServerFailed | ServerUnreachable | CalDAVError):
            return None
        seen = seen.__cause__
    return None


@dataclass(frozen=True)
class Backoff:
    """The n-th failed sync in a row (n = 1, 2, ...) waits base * 2**(n-1), capped at `cap`,
    scaled by a jitter factor in [0.5, 1); a Retry-After is a floor (capped too, so a server
    cannot park a target for days). `attempts` failed syncs in a row and it stops."""

    base: timedelta = timedelta(seconds=5)
    cap: timedelta = timedelta(minutes=30)
    attempts: int = 12  # about 2.5 hours of trying with the defaults

    def delay(self, failures: int, retry_after: float | None, draw: Callable[[], float]) -> timedelta:
        exponent = max(0, min(failures - 1, 30))  # bounded: 2**30 * base overflows nothing
        backoff = min(self.cap, self.base * (1 << exponent))
        jittered = backoff * (0.5 + 0.5 * draw())
        if retry_after is not None and retry_after > 0:
            jittered = max(jittered, min(self.cap, timedelta(seconds=retry_after)))
        return jittered

    def gives_up(self, failures: int) -> bool:
        return failures >= self.attempts


DEFAULT_BACKOFF = Backoff()
