"""The schedule page's parts (page_parts.py): which sessions each day's section shows."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from feeds.catalogue import day_slug
from feeds.model import Schedule, Status
from server.pages.page_parts import day_sessions
from server.snapshot.published import Published
from tests.helpers.crowded import crowded

NOW = datetime(2025, 3, 20, tzinfo=UTC)


def by_start_day(published: Published) -> dict[str, tuple[str, ...]]:
    """The whole conference's sessions (ids) by the conference-zone day each starts on, in order."""
    everything = published.feed("all", "")
    assert everything is not None
    days: dict[str, list[str]] = {}
    for session in everything.sessions:
        days.setdefault(day_slug(session, published.conference), []).append(session.id)
    return {slug: tuple(days[slug]) for slug in sorted(days)}


def test_each_day_holds_the_sessions_starting_on_it_in_the_conference_zone() -> None:
    schedule = crowded(40)
    first, second, third, *rest = schedule.sessions
    # 23:30 UTC on the first day is 00:30 in Brussels on the second; withdrawn long ago, the third
    # is in no feed, and its day (a day feed of no session) has no section; the second, withdrawn
    # a day ago, is still shown as cancelled.
    late = dataclasses.replace(
        first, start=first.start.replace(hour=23, minute=30), end=first.end.replace(hour=23, minute=55)
    )
    gone = dataclasses.replace(
        third,
        start=third.start + timedelta(days=2),
        end=third.end + timedelta(days=2),
        status=Status.CANCELLED,
        modified=NOW - timedelta(days=90),
    )
    recent = dataclasses.replace(second, status=Status.CANCELLED, modified=NOW - timedelta(days=1))
    published = Published(Schedule(schedule.conference, (late, recent, gone, *rest)), now=NOW)

    days = {slug: tuple(s.id for s in sessions) for slug, sessions in day_sessions(published).items()}

    assert days == by_start_day(published)
    assert list(days) == ["2025-02-01", "2025-02-02"]
    assert (days["2025-02-02"][0], recent.id in days["2025-02-02"]) == (late.id, True)
    assert [f.spec.slug for f in published.feeds if f.spec.kind.value == "day"] == [*days, "2025-02-03"]
