"""A calendar lease's test clock: the tests move time by hand instead of waiting for it."""

from __future__ import annotations

from datetime import UTC, datetime

CALENDAR = "https://dav.example.org/alice/cal/"
T0 = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now
