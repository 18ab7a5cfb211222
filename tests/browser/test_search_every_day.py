"""Search and filters over every day of a multi-day conference (FOSDEM 2025, two days): the page
says how many sessions match on each day, with and without JavaScript, and links to them; the
feed of the view says in words what it holds, whether or not a day is part of it.

Michael Meeks gives three talks on Saturday and one on Sunday (counted from the API here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from tests.helpers.browser_helpers import Visit, new_visit
from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

CARD = "#sessions [data-session-id]"
SATURDAY, SUNDAY = "2025-02-01", "2025-02-02"


def talks_by_day(server: Running, name: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for s in httpx.get(server.url + "/api/sessions").json()["sessions"]:
        if any(p["name"] == name for p in s["speakers"]):
            found.setdefault(s["start"][:10], []).append(s["id"])
    return found


def day_counts(visit: Visit) -> dict[str, str]:
    found: dict[str, str] = visit.page.eval_on_selector_all(
        "#day-counts a[data-count-day]",
        "links => Object.fromEntries(links.map(a => [a.dataset.countDay, a.querySelector('.count').textContent]))",
    )
    return found


def visible_ids(visit: Visit) -> list[str]:
    found: list[str] = visit.page.eval_on_selector_all(
        CARD, "cards => cards.filter(c => c.offsetParent !== null).map(c => c.dataset.sessionId).sort()"
    )
    return found


def test_a_typed_search_counts_every_day_and_links_to_the_other(browser: Browser, fosdem: Running) -> None:
    talks = talks_by_day(fosdem, "Michael Meeks")
    visit = new_visit(browser, fosdem)
    visit.open("/")

    visit.page.fill("#filter-search", "michael meeks")
    # Imported here so a machine without Playwright skips (conftest) instead of failing to collect.
    from playwright.sync_api import expect

    expect(visit.page.locator('#day-counts a[data-count-day="all"] .count')).to_have_text("4")
    counts = day_counts(visit)
    on_saturday = visible_ids(visit)
    visit.page.click(f'#day-counts a[data-count-day="{SUNDAY}"]')
    visit.wait_ready()
    on_sunday = visible_ids(visit)
    visit.context.close()

    assert counts == {SATURDAY: str(len(talks[SATURDAY])), SUNDAY: str(len(talks[SUNDAY])), "all": "4"}
    assert (len(talks[SATURDAY]), len(talks[SUNDAY])) == (3, 1)
    assert on_saturday == sorted(talks[SATURDAY])
    assert on_sunday == sorted(talks[SUNDAY])
    assert visit.console_errors == []


def test_without_javascript_the_server_counts_every_day(browser: Browser, fosdem: Running) -> None:
    talks = talks_by_day(fosdem, "Michael Meeks")
    visit = new_visit(browser, fosdem, java_script_enabled=False)

    visit.page.goto(fosdem.url + "/?q=michael+meeks")
    counts = day_counts(visit)
    visit.context.close()

    assert counts == {SATURDAY: str(len(talks[SATURDAY])), SUNDAY: str(len(talks[SUNDAY])), "all": "4"}


def test_the_views_feed_says_which_day_it_covers(browser: Browser, fosdem: Running) -> None:
    visit = new_visit(browser, fosdem)
    visit.open("/")

    first = visit.page.inner_text("a[data-filtered-webcal]")
    visit.page.select_option("#filter-track", "rust")
    filtered = visit.page.inner_text("a[data-filtered-webcal]")
    every_day = visit.page.get_attribute("a[data-all-days-webcal]", "href")
    on_all_days = new_visit(browser, fosdem)
    on_all_days.open("/days/all/?track=rust")
    all_days = on_all_days.page.inner_text("a[data-filtered-webcal]")
    visit.context.close()
    on_all_days.context.close()

    assert first == "Subscribe to the sessions on Saturday 1 February 2025 only"
    assert filtered == "Subscribe to the sessions of track Rust on Saturday 1 February 2025 only"
    assert every_day == fosdem.url.replace("http://", "webcal://") + "/feeds/all.ics?track=rust"
    assert all_days == "Subscribe to the sessions of track Rust of every day"
