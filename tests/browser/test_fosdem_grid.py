"""FOSDEM 2025's grid at 1440 px (29 rooms on Saturday): the timetable scrolls inside its own box
with the room names and the time axis staying in view, the axis steps every half hour, a filter
keeps only the rooms and hours it shows, the list or grid choice is remembered on the device, and
axe finds nothing (target sizes, the track colours' contrast) in light and dark.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.helpers.axe import AXE, RUN, TAGS
from tests.helpers.browser_helpers import Visit, new_visit, unavailable
from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    from playwright.sync_api import Browser, FloatRect

GRID = "#day-2025-02-01 .day-grid"


@pytest.fixture
def saturday(browser: Browser, fosdem: Running) -> Iterator[Visit]:
    visit = new_visit(browser, fosdem)
    visit.open("/")
    yield visit
    visit.context.close()
    assert visit.console_errors == []


def box(visit: Visit, selector: str) -> FloatRect:
    found = visit.page.locator(selector).first.bounding_box()
    # Playwright gives None only for an element that is not visible, and these are the shown grid's parts.
    assert found is not None, f"{selector} has no box"
    return found


def test_room_names_and_times_stay_in_view_as_the_grid_scrolls(saturday: Visit) -> None:
    saturday.page.eval_on_selector(GRID, "grid => { grid.scrollIntoView(); grid.scrollBy(2500, 1500); }")

    grid = box(saturday, GRID)
    heads = box(saturday, f"{GRID} .room-heads")
    labels = saturday.page.eval_on_selector_all(
        f"{GRID} .tick span",
        """(spans, grid) => spans.map(s => s.getBoundingClientRect())
             .filter(r => r.top >= grid.y + 40 && r.bottom <= grid.y + grid.height).map(r => r.left)""",
        grid,
    )
    scrolled = saturday.page.eval_on_selector(GRID, "grid => [grid.scrollLeft, grid.scrollTop]")

    assert scrolled[0] > 0 and scrolled[1] > 0
    assert abs(heads["y"] - grid["y"]) <= 2
    assert len(labels) >= 1
    assert all(abs(left - grid["x"]) <= 2 for left in labels)


def test_the_time_axis_steps_every_half_hour(saturday: Visit) -> None:
    labels = saturday.page.locator(f"{GRID} .tick span").all_text_contents()

    times = [datetime.strptime(label, "%H:%M") for label in labels]
    assert len(times) > 10
    assert {b - a for a, b in zip(times, times[1:])} == {timedelta(minutes=30)}


def half_hour_from(clock: str) -> str:
    """The first full half hour at or after `clock` ("10:15" -> "10:30")."""
    hours, minutes = map(int, clock.split(":"))
    total = -(-(hours * 60 + minutes) // 30) * 30
    return f"{total // 60:02}:{total % 60:02}"


def test_a_track_filter_keeps_only_its_rooms_and_hours(saturday: Visit, fosdem: Running) -> None:
    sessions = httpx.get(fosdem.url + "/api/sessions").json()["sessions"]
    rust = [s for s in sessions if s["track"] == "Rust" and s["start"].startswith("2025-02-01")]

    saturday.page.select_option("#filter-track", "rust")
    rooms = saturday.page.locator(f"{GRID} .room-heads > span:not([hidden])").all_text_contents()
    width = saturday.page.eval_on_selector(GRID, "grid => grid.scrollWidth - grid.clientWidth")
    first_label = saturday.page.locator(f"{GRID} .tick:not([hidden]) span").first.text_content()
    saturday.page.select_option("#filter-track", "")
    all_rooms = saturday.page.locator(f"{GRID} .room-heads > span:not([hidden])").count()

    assert sorted(r for r in rooms if r) == sorted({s["room"] for s in rust})
    assert width == 0
    assert first_label == half_hour_from(min(s["start"][11:16] for s in rust))
    assert all_rooms == 29 + 1  # and the corner above the axis


def test_the_list_or_grid_choice_is_remembered_on_this_device(saturday: Visit) -> None:
    saturday.page.click('[data-layout-choice="list"]')
    saturday.page.reload()
    saturday.wait_ready()

    layout = saturday.page.evaluate("document.documentElement.dataset.layout")
    heads_shown = saturday.page.is_visible(f"{GRID} .room-heads")
    wide = saturday.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")

    assert layout == "list"
    assert heads_shown is False
    assert wide == 0


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_fosdems_grid(browser: Browser, fosdem: Running, scheme: str) -> None:
    if not AXE.exists():
        unavailable(f"{AXE} is missing (npm ci --prefix tests/browser)")
    visit = new_visit(browser, fosdem, color_scheme=scheme)
    visit.page.clock.install(time="2025-02-01T11:05:00+01:00")
    visit.open("/")
    visit.page.evaluate(AXE.read_text(encoding="utf-8"))

    violations = visit.page.evaluate(RUN, {"runOnly": {"type": "tag", "values": TAGS}})
    visit.context.close()

    assert violations == [], json.dumps(violations, indent=1)
