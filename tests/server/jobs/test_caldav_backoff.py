"""What a failed sync does next: the verdict per error, and the backoff's growth, jitter, cap,
Retry-After floor and end."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.exc import OperationalError

from server.caldav.errors import (
    AccessDenied,
    AuthenticationFailed,
    CalendarNotFound,
    NotACalendar,
    ServerFailed,
    ServerUnreachable,
    TransientError,
)
from server.caldav.retry import NO_WAIT, with_retry
from server.errors import StoreBusy
from server.jobs.backoff import Backoff, Judged, Verdict, judge

BACKOFF = Backoff(base=timedelta(seconds=5), cap=timedelta(minutes=30), attempts=12)


def gave_up_on(error: TransientError) -> Exception:
    """What the executor raises after its own retries of `error` (server.caldav.retry)."""

    def failing() -> None:
        raise error

    try:
        with_retry(failing, NO_WAIT)
    except Exception as exc:
        return exc
    raise AssertionError("with_retry did not raise")


def test_refused_credentials_need_new_ones() -> None:
    assert judge(AuthenticationFailed("cannot log in (401)")) == Judged(Verdict.NEEDS_CREDENTIALS)


@pytest.mark.parametrize("error", [AccessDenied("403"), CalendarNotFound("404"), NotACalendar("no"), ValueError("bug")])
def test_other_refusals_stop(error: Exception) -> None:
    assert judge(error) == Judged(Verdict.FAILED)


def test_a_server_failure_after_the_executors_retries_is_retried_with_its_retry_after() -> None:
    error = gave_up_on(TransientError("PUT x: slow down", retry_after=120.0))

    assert isinstance(error, ServerFailed)
    assert judge(error) == Judged(Verdict.RETRY, 120.0)


def test_an_unreachable_server_is_retried() -> None:
    error = gave_up_on(TransientError("cannot reach", unreachable=True))

    assert isinstance(error, ServerUnreachable)
    assert judge(error) == Judged(Verdict.RETRY)


def test_a_bad_answer_that_is_not_transient_stops() -> None:
    assert judge(ServerFailed("x: the server refused the write (HTTP 400)")) == Judged(Verdict.FAILED)


def test_a_busy_store_is_retried() -> None:
    locked = OperationalError("UPDATE x", {}, Exception("database is locked"))

    assert [judge(StoreBusy("locked")), judge(locked)] == [Judged(Verdict.RETRY)] * 2


def test_delay_doubles_per_failure_within_the_jitter() -> None:
    low = [BACKOFF.delay(n, None, lambda: 0.0) for n in (1, 2, 3, 4)]
    high = [BACKOFF.delay(n, None, lambda: 1.0) for n in (1, 2, 3, 4)]

    assert low == [timedelta(seconds=s) for s in (2.5, 5, 10, 20)]
    assert high == [timedelta(seconds=s) for s in (5, 10, 20, 40)]


def test_delay_is_capped() -> None:
    assert BACKOFF.delay(60, None, lambda: 1.0) == timedelta(minutes=30)


def test_retry_after_is_a_floor_and_capped_too() -> None:
    assert BACKOFF.delay(1, 120.0, lambda: 0.0) == timedelta(seconds=120)
    assert BACKOFF.delay(5, 1.0, lambda: 0.0) == timedelta(seconds=40)
    assert BACKOFF.delay(1, 86400.0, lambda: 0.0) == timedelta(minutes=30)


def test_gives_up_after_the_last_attempt() -> None:
    assert [BACKOFF.gives_up(n) for n in (1, 11, 12)] == [False, False, True]
