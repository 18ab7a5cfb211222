"""Every feed of the seed schedule, read by four parsers, gives the seed pages' CEST times.

The expected instants come from the page text itself (the "Tuesday April 7, 2026 11:00 - 11:10
CEST" line under each title), read here with a regex independent of feeds.sources.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import cache
from itertools import pairwise

import pytest

from feeds.catalogue import catalogue
from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.ical import EventCache, render_calendar, uid
from feeds.model import Schedule
from feeds.pipeline import load_schedule
from feeds.query import FeedQuery, select
from tests.helpers.seed_clock import NOW
from tests.interop.clients import ReadAll, Readings

CEST = timedelta(hours=2)  # the pages say "displayed in CEST (UTC/GMT +2)"
TIME_LINE = re.compile(r"^\w+day (\w+ \d{1,2}, \d{4}) (\d\d:\d\d) - (\d\d:\d\d) CEST$")


@cache
def seed() -> Schedule:
    return load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule


@cache
def feeds() -> dict[str, bytes]:
    """Every catalogue feed, keyed "kind/slug", rendered as the server would."""
    schedule, events = seed(), EventCache()
    return {
        f"{spec.kind.value}/{spec.slug}": render_calendar(
            schedule.conference,
            select(schedule, FeedQuery().for_spec(spec), now=NOW),
            title=spec.title,
            base_url="https://confcal.example",
            cache=events,
        )
        for spec in catalogue(schedule)
    }


def page_times() -> list[tuple[str, datetime, datetime]]:
    """(line above the time line, UTC start, UTC end) for every time line of the seed pages."""
    found: list[tuple[str, datetime, datetime]] = []
    for page in sorted(DEMO_DIR.glob("*.txt")):
        lines = page.read_text(encoding="utf-8").splitlines()
        for above, line in pairwise(lines):
            if match := TIME_LINE.match(line):
                day, start, end = match.groups()
                local = [datetime.strptime(f"{day} {t}", "%B %d, %Y %H:%M") for t in (start, end)]
                utc_start, utc_end = ((t - CEST).replace(tzinfo=UTC) for t in local)
                found.append((above, utc_start, utc_end))
    return found


@pytest.fixture(scope="module")
def readings(read_all: ReadAll) -> dict[str, dict[str, Readings]]:
    return read_all(feeds())


def test_seed_schedule_has_its_28_sessions_and_feeds() -> None:
    assert (len(seed().sessions), len(feeds()) > 20) == (28, True)


@pytest.mark.parametrize("name", list(feeds()))
def test_four_parsers_agree_on_every_feed(readings: dict[str, dict[str, Readings]], name: str) -> None:
    by_parser = readings[name]

    expected = by_parser["icalendar"]
    assert {parser: found == expected for parser, found in by_parser.items()} == dict.fromkeys(by_parser, True)
    assert len(expected) >= 1


def test_every_session_is_at_its_page_time(
    readings: dict[str, dict[str, Readings]],
) -> None:
    times = page_times()
    conference = seed().conference
    read = readings["all/"]

    wrong = {}
    for session in seed().sessions:
        on_pages = {(start, end) for above, start, end in times if session.title in above}
        for parser, found in read.items():
            if on_pages != {found[uid(conference, session)]}:
                wrong[session.title, parser] = (
                    on_pages,
                    found[uid(conference, session)],
                )

    assert wrong == {}
    assert len(read["ical.js"]) == 28
