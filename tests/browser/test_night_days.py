"""The schedule page in the night, on 38C3 (its days change at 06:00): at 00:30 it is still the
evening's conference day, so the page says the conference is on, lists what runs now, and draws
the now line across the evening's timetable, where its night's sessions are.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.helpers.browser_helpers import Visit, api_sessions, checked_visit, strip_ids
from tests.helpers.serve_process import Running, serving_schedule

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# Saturday 28 December, 00:30 in Berlin: a night of Friday the 27th's conference day.
NIGHT = "2024-12-28T00:30:00+01:00"


@pytest.fixture(scope="module")
def ccc(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Iterator[Running]:
    with serving_schedule(
        tmp_path_factory.mktemp("browser-38c3"), shared_data / "ccc_38c3_2024_schedule.xml"
    ) as running:
        yield running


@contextmanager
def opened_at(browser: Browser, server: Running, moment: str) -> Iterator[Visit]:
    """The schedule page, opened with the clock at `moment`."""
    with checked_visit(browser, server) as visit:
        visit.page.clock.install(time=moment)
        visit.open("/")
        yield visit


@pytest.fixture
def night(browser: Browser, ccc: Running) -> Iterator[Visit]:
    with opened_at(browser, ccc, NIGHT) as visit:
        yield visit


def running_at_night(server: Running) -> list[str]:
    # Every time is at +01:00 (the API gives the conference's), so their minutes compare as text.
    return sorted(s["id"] for s in api_sessions(server) if s["start"][:16] <= "2024-12-28T00:30" < s["end"][:16])


def during(browser: Browser, server: Running, moment: str) -> bool:
    """Whether the page, opened at `moment`, says the conference is on (now and next shown)."""
    with opened_at(browser, server, moment) as visit:
        on: bool = visit.page.evaluate("document.documentElement.classList.contains('during')")
    return on


def test_the_conference_is_on_from_its_first_day_change_through_its_nights(browser: Browser, ccc: Running) -> None:
    moments = ["2024-12-27T05:59:00+01:00", "2024-12-27T06:00:00+01:00", NIGHT]

    assert [during(browser, ccc, moment) for moment in moments] == [False, True, True]


def test_now_lists_what_runs_in_the_night(night: Visit, ccc: Running) -> None:
    found = strip_ids(night, "[data-now]")

    assert (found, len(found)) == (running_at_night(ccc), 11)


def test_the_now_line_is_on_the_evenings_timetable(night: Visit) -> None:
    line = night.page.locator("#day-2024-12-27 #now-line")

    assert (line.is_visible(), night.page.get_attribute("#jump-now", "href")) == (True, "#now-line")
