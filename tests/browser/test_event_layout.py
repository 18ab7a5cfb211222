"""The schedule page while the conference is on, at phone (390) and desktop (1440) widths, on the
demo and on FOSDEM 2025 (943 sessions, 29 rooms): the page never scrolls sideways (a wide
timetable scrolls inside its own box) and nothing moves once it is on screen (cumulative layout
shift under 0.05, measured by the browser's own layout-shift entries from the first paint on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from tests.helpers.browser_helpers import DESKTOP, PHONE, layout_shift, new_visit, watch_layout_shifts
from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

SIZES = {"phone": PHONE, "desktop": DESKTOP}
WIDER = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
# (page, clock) in the conference's zone: the start, the busy middle and the end of each day.
DEMO_TIMES = [
    ("/", "2026-04-07T09:02:00+02:00"),
    ("/", "2026-04-07T11:05:00+02:00"),
    ("/", "2026-04-07T17:00:00+02:00"),
]
FOSDEM_TIMES = [
    ("/", "2025-02-01T09:10:00+01:00"),
    ("/", "2025-02-01T14:05:00+01:00"),
    ("/", "2025-02-01T18:50:00+01:00"),
    ("/days/2025-02-02/", "2025-02-02T10:30:00+01:00"),
    ("/days/2025-02-02/", "2025-02-02T16:00:00+01:00"),
]


def layout_at(browser: Browser, server: Running, size: str, path: str, moment: str) -> dict[str, float]:
    visit = new_visit(browser, server)
    visit.page.set_viewport_size(SIZES[size])
    visit.page.clock.install(time=moment)
    watch_layout_shifts(visit.page)
    visit.open(path)
    visit.page.clock.run_for(1000)  # the first task after start-up (picks restored) has run
    found = {"wide": visit.page.evaluate(WIDER), "shift": layout_shift(visit.page)}
    visit.context.close()
    assert visit.console_errors == []
    return found


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_demo_neither_scrolls_sideways_nor_shifts_during_the_event(
    browser: Browser, server: Running, size: str
) -> None:
    found = {moment: layout_at(browser, server, size, path, moment) for path, moment in DEMO_TIMES}

    assert {moment: f for moment, f in found.items() if f["wide"] != 0 or f["shift"] >= 0.05} == {}


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_fosdem_neither_scrolls_sideways_nor_shifts_during_the_event(
    browser: Browser, fosdem: Running, size: str
) -> None:
    found = {moment: layout_at(browser, fosdem, size, path, moment) for path, moment in FOSDEM_TIMES}

    assert {moment: f for moment, f in found.items() if f["wide"] != 0 or f["shift"] >= 0.05} == {}


def test_another_days_page_on_a_phone_keeps_its_now_and_next_box_still(browser: Browser, fosdem: Running) -> None:
    # On the first day, the second day's page names today's page in its jump link, which takes
    # two lines on a phone where "Jump to now" takes one.
    found = layout_at(browser, fosdem, "phone", "/days/2025-02-02/", "2025-02-01T14:05:00+01:00")

    assert found == {"wide": 0, "shift": 0}


FIRST_SCREEN = "() => document.getElementsByTagName('*').length"
CARDS = "() => document.querySelectorAll('#sessions .card').length"


def test_fosdems_busiest_day_starts_light_on_a_phone_and_lays_out_the_rest_when_scrolled_to(
    browser: Browser, fosdem: Running
) -> None:
    visit = new_visit(browser, fosdem)
    visit.page.set_viewport_size(PHONE)
    visit.page.clock.install(time="2025-01-20T12:00:00+01:00")  # before the event: nothing needs every card
    visit.open("/")

    first_screen = visit.page.evaluate(FIRST_SCREEN)
    before = visit.page.evaluate(CARDS)
    visit.page.locator("#subscribe").scroll_into_view_if_needed()
    visit.page.wait_for_function("() => document.querySelectorAll('#sessions .card').length > 400")
    after = visit.page.evaluate(CARDS)
    visit.context.close()

    assert first_screen < 2000
    assert before < 50
    assert after == 470
    assert visit.console_errors == []


def test_without_javascript_every_card_of_the_day_is_read(browser: Browser, fosdem: Running) -> None:
    visit = new_visit(browser, fosdem, java_script_enabled=False)
    visit.page.set_viewport_size(PHONE)

    visit.page.goto(fosdem.url + "/")
    shown = visit.page.eval_on_selector_all("#sessions .card", "cards => cards.filter(c => c.offsetParent).length")
    visit.context.close()

    assert shown == 470


def test_now_on_fosdems_phone_page_lists_every_running_session_of_the_later_slots(
    browser: Browser, fosdem: Running
) -> None:
    sessions = httpx.get(fosdem.url + "/api/sessions").json()["sessions"]
    moment = "2025-02-01T14:05:00+01:00"
    running = sorted(s["id"] for s in sessions if s["start"] <= moment < s["end"] and s["status"] == "confirmed")
    visit = new_visit(browser, fosdem)
    visit.page.set_viewport_size(PHONE)
    visit.page.clock.install(time=moment)
    visit.open("/")

    visit.page.wait_for_selector("#now-next [data-now] li", state="attached")
    shown = visit.page.eval_on_selector_all(
        "#now-next [data-now] [data-session-id]", "rows => rows.map(r => r.dataset.sessionId).sort()"
    )
    visit.context.close()

    assert len(running) > 10
    assert shown == running


def test_the_reading_counts_a_shift_the_page_makes(browser: Browser, server: Running) -> None:
    visit = new_visit(browser, server)
    visit.page.set_viewport_size(PHONE)
    watch_layout_shifts(visit.page)
    visit.open()
    before = layout_shift(visit.page)

    # Everything on screen moves down by a block put at the top, in the frame after this one.
    visit.page.evaluate(
        """() => new Promise(done => {
          const block = document.createElement("div");
          block.style.height = "300px";
          document.body.prepend(block);
          requestAnimationFrame(() => requestAnimationFrame(done));
        })"""
    )
    after = layout_shift(visit.page)
    visit.context.close()

    assert (before, after > 0.05) == (0, True)
