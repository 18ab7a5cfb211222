"""Retrying idempotent requests (server/caldav/retry.py): how many tries, how long between them,
and which error ends a run that never got through. Pure: the waits are recorded, not slept."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from server.caldav.errors import ServerFailed, ServerUnreachable, TransientError
from server.caldav.retry import RetryPolicy, with_retry


class Flaky:
    """A request that fails `failures` times with `error`, then answers "etag"."""

    def __init__(self, failures: int, error: TransientError) -> None:
        self.failures = failures
        self.error = error
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return "etag"


@pytest.fixture
def seeded() -> Iterator[None]:
    """The jitter's draws made repeatable; the interpreter's generator is left as it was."""
    saved = random.getstate()
    random.seed(14)
    yield
    random.setstate(saved)


def test_a_request_that_keeps_failing_is_tried_attempts_times_with_backoff_between() -> None:
    waits: list[float] = []
    policy = RetryPolicy(attempts=4, base_delay=1.0, max_delay=100.0, sleep=waits.append)
    request = Flaky(10, TransientError("PUT: server error (HTTP 503)"))

    with pytest.raises(ServerFailed) as raised:
        with_retry(request, policy)

    assert str(raised.value) == "PUT: server error (HTTP 503) (gave up after 4 attempts)"
    assert request.calls == 4
    assert len(waits) == 3
    assert [0.5 <= waits[0] <= 1.0, 1.0 <= waits[1] <= 2.0, 2.0 <= waits[2] <= 4.0] == [True] * 3


def test_a_request_that_recovers_is_answered_after_its_failures() -> None:
    waits: list[float] = []
    request = Flaky(4, TransientError("GET: connection reset", unreachable=True))

    answer = with_retry(request, RetryPolicy(attempts=5, sleep=waits.append))

    assert (answer, request.calls, len(waits)) == ("etag", 5, 4)


def test_the_servers_retry_after_is_the_wait_up_to_the_cap() -> None:
    waits: list[float] = []
    policy = RetryPolicy(attempts=3, max_delay=30.0, sleep=waits.append)

    with_retry(Flaky(1, TransientError("PUT: busy (HTTP 429)", retry_after=7.0)), policy)
    with_retry(Flaky(1, TransientError("PUT: busy (HTTP 503)", retry_after=600.0)), policy)

    assert waits == [7.0, 30.0]


@pytest.mark.parametrize(
    ("unreachable", "final"),
    [(True, ServerUnreachable), (False, ServerFailed)],
)
def test_connection_failures_end_as_unreachable_and_server_errors_as_failed(
    unreachable: bool, final: type[Exception]
) -> None:
    request = Flaky(10, TransientError("PROPFIND: failed", unreachable=unreachable))

    with pytest.raises(Exception) as raised:
        with_retry(request, RetryPolicy(attempts=2, sleep=lambda _seconds: None))

    assert type(raised.value) is final


def test_backoff_is_jittered_between_half_and_all_of_base_times_two_to_the_attempt(seeded: None) -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=100.0)

    draws = [policy.delay(3, None) for _ in range(1000)]

    assert 4.0 <= min(draws) < 4.1
    assert 7.9 < max(draws) <= 8.0


def test_a_policy_of_no_attempts_is_refused() -> None:
    with pytest.raises(AssertionError, match=r"^unreachable: attempts must be >= 1$"):
        with_retry(lambda: "etag", RetryPolicy(attempts=0))
