"""The schedule page in a real browser against `confcal serve`: the seed sessions, picks and the
personal feed, filters, layout at phone and desktop widths, keyboard use and the viewer's zone.

Every visit is checked at teardown for console errors and for requests leaving the server
(conftest.visit); screenshots go to test-output/browser/.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import httpx

from tests.helpers.browser_helpers import (
    DESKTOP,
    PHONE,
    PICK,
    Visit,
    api_sessions,
    attached,
    new_visit,
    picked_ids,
    unfold,
)
from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

CARD = "#sessions [data-session-id]"


def feed_uids(url: str) -> list[str]:
    return re.findall(r"\r\nUID:([^\r]+)", httpx.get(url).text)


def visible_ids(visit: Visit) -> list[str]:
    ids: list[str] = visit.page.eval_on_selector_all(
        CARD,
        "cards => cards.filter(c => c.offsetParent !== null).map(c => c.dataset.sessionId)",
    )
    return ids


def pick(visit: Visit, session_id: str) -> None:
    """Toggle the pick and wait until the page has saved it (its POST or PUT answered)."""
    with visit.page.expect_response(lambda r: "/api/picks" in r.url and r.request.method in ("POST", "PUT")):
        visit.page.click(f"#session-{session_id} {PICK}")


def test_page_shows_the_28_seed_sessions(visit: Visit, server: Running) -> None:
    visit.open()

    ids = visit.page.eval_on_selector_all(CARD, "cards => cards.map(c => c.dataset.sessionId)")

    assert sorted(ids) == sorted(s["id"] for s in api_sessions(server))
    assert len(visible_ids(visit)) == 28
    assert visit.page.text_content("#result-count") == "28 sessions"
    visit.screenshot("desktop-1440x900")
    assert visit.console_errors == []
    assert visit.foreign_requests() == []


def test_picking_two_puts_exactly_those_two_in_the_personal_feed(visit: Visit, server: Running) -> None:
    sessions = api_sessions(server)
    chosen = [sessions[2], sessions[9]]
    visit.open()

    # Two quick clicks, no waiting in between: the mark on the link waits for both saves.
    for session in chosen:
        visit.page.click(f"#session-{session['id']} {PICK}")
    href = attached(visit.page, "a[data-personal-feed]").get_attribute("href")

    assert href is not None and re.fullmatch(re.escape(server.url) + r"/p/[A-Za-z0-9_-]{22,}\.ics", href)
    assert sorted(feed_uids(href)) == sorted(s["uid"] for s in chosen)
    pressed = picked_ids(visit.page)
    assert sorted(pressed) == sorted(s["id"] for s in chosen)
    visit.page.click("#picks-toggle")
    visit.page.click("#picks-more > summary")
    assert visit.page.is_visible("#personal-qr")


def test_unpicking_updates_the_same_feed(visit: Visit, server: Running) -> None:
    first, second = api_sessions(server)[:2]
    visit.open()
    pick(visit, first["id"])
    pick(visit, second["id"])
    href = visit.page.get_attribute("a[data-personal-feed]", "href")

    pick(visit, first["id"])

    assert href is not None
    assert visit.page.get_attribute("a[data-personal-feed]", "href") == href
    assert feed_uids(href) == [second["uid"]]


def test_a_reload_keeps_the_picks_and_the_link(visit: Visit, server: Running) -> None:
    chosen = api_sessions(server)[4:6]
    visit.open()
    for session in chosen:
        pick(visit, session["id"])
    before = visit.page.get_attribute("a[data-personal-feed]", "href")

    visit.page.reload()
    visit.wait_ready()
    after = attached(visit.page, "a[data-personal-feed]").get_attribute("href")

    assert after == before
    for session in chosen:
        assert visit.page.get_attribute(f"#session-{session['id']} {PICK}", "aria-pressed") == "true"
    assert visit.page.locator(f'#sessions {PICK}[aria-pressed="true"]').count() == 2


def test_filters_and_search_narrow_the_list(visit: Visit, server: Running) -> None:
    sessions = api_sessions(server)
    visit.open()

    visit.page.select_option("#filter-track", label="Training Systems")
    in_track = visible_ids(visit)
    visit.page.select_option("#filter-level", label="Any")
    in_track_and_level = visible_ids(visit)
    visit.page.click("#filters a.reset")
    # A locator, not wait_for_function: the page's CSP refuses string evaluation. Imported
    # here so a machine without Playwright skips (conftest) instead of failing to collect.
    from playwright.sync_api import expect

    expect(visit.page.locator("#result-count")).to_have_text("28 sessions")
    visit.page.fill("#filter-search", "valerian")  # without the accent, as people type
    searched = visible_ids(visit)

    assert sorted(in_track) == sorted(s["id"] for s in sessions if s["track"] == "Training Systems")
    assert sorted(in_track_and_level) == sorted(
        s["id"] for s in sessions if s["track"] == "Training Systems" and s["level"] == "Any"
    )
    assert 0 < len(in_track_and_level) < len(in_track) < 28
    assert [next(s["title"] for s in sessions if s["id"] == i) for i in searched] == [
        "TorchJD: Jacobian Descent in PyTorch"
    ]


def test_only_my_picks(visit: Visit, server: Running) -> None:
    chosen = api_sessions(server)[7]
    visit.open()
    pick(visit, chosen["id"])

    visit.page.check("#filter-picked")

    assert visible_ids(visit) == [chosen["id"]]


def test_phone_width_is_a_list_without_horizontal_scroll(browser: Browser, server: Running) -> None:
    for width in (360, PHONE["width"]):
        visit = new_visit(browser, server)
        visit.page.set_viewport_size({"width": width, "height": PHONE["height"]})
        visit.open()

        lefts = visit.page.eval_on_selector_all(CARD, "cards => cards.map(c => c.getBoundingClientRect().left)")
        scroll_width = visit.page.evaluate("document.documentElement.scrollWidth")
        if width == PHONE["width"]:
            visit.screenshot(f"phone-{PHONE['width']}x{PHONE['height']}")
        visit.context.close()

        assert len(set(lefts)) == 1
        assert scroll_width <= width
        assert visit.console_errors == []
        assert visit.foreign_requests() == []


def test_wide_screen_puts_rooms_side_by_side(visit: Visit, server: Running) -> None:
    visit.open()
    same_start = [s["id"] for s in api_sessions(server) if s["start"] == "2026-04-07T11:00:00+02:00"]

    boxes = [visit.page.locator(f'[data-session-id="{i}"]').bounding_box() for i in same_start]

    assert visit.page.viewport_size == DESKTOP
    assert len(same_start) >= 2
    assert len({round(b["y"]) for b in boxes if b}) == 1
    assert len({round(b["x"]) for b in boxes if b}) == len(same_start)


def test_keyboard_alone_can_pick_and_focus_is_visible(visit: Visit) -> None:
    visit.open()
    visit.page.keyboard.press("Tab")
    outline = visit.page.evaluate("getComputedStyle(document.activeElement).outlineStyle")

    for _ in range(100):  # past the skip links and the filters to the first card
        if visit.page.evaluate("document.activeElement.dataset.action") == "pick":
            break
        visit.page.keyboard.press("Tab")
    visit.page.keyboard.press("Space")
    visit.page.wait_for_selector("a[data-personal-feed]", state="attached")

    assert outline == "solid"
    assert visit.page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "true"


def test_times_in_the_viewers_zone_only_when_it_differs(browser: Browser, server: Running) -> None:
    shown = {}
    for zone in ("America/New_York", "Europe/Berlin", "Europe/Paris"):
        visit = new_visit(browser, server, timezone_id=zone)
        visit.open()
        shown[zone] = visit.page.locator(".local-time:visible").all_text_contents()
        visit.context.close()
        assert visit.console_errors == []

    assert len(shown["America/New_York"]) == 28
    assert all(text.endswith(" your time") for text in shown["America/New_York"])
    # Berlin shares Paris's offset that day: nothing to add.
    assert (shown["Europe/Berlin"], shown["Europe/Paris"]) == ([], [])


CONTRAST = """
() => {
  const rgb = s => s.match(/[\\d.]+/g).map(Number);
  const channel = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = el => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c;
    }
    return [255, 255, 255];
  };
  const worst = {};
  for (const el of document.querySelectorAll("body *")) {
    if (!el.offsetParent || ![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const [a, b] = [luminance(rgb(getComputedStyle(el).color)), luminance(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const key = el.tagName.toLowerCase() + "." + el.className;
    worst[key] = Math.min(worst[key] || 99, Math.round(ratio * 100) / 100);
  }
  return worst;
}
"""

UNLABELLED = """
() => [...document.querySelectorAll("input, select, button, a[href]")]
  .filter(el => el.offsetParent)
  .filter(el => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !el.textContent.trim())
  .map(el => el.outerHTML)
"""


def test_text_contrast_is_at_least_4_5_and_every_control_is_labelled(visit: Visit, server: Running) -> None:
    visit.open()
    pick(visit, api_sessions(server)[0]["id"])  # a picked card and the picks panel too
    unfold(visit.page, "#feeds-room details.more summary")

    ratios = visit.page.evaluate(CONTRAST)
    unlabelled = visit.page.evaluate(UNLABELLED)

    assert len(ratios) > 10  # it measured the page's many kinds of text
    assert {k: r for k, r in ratios.items() if r < 4.5} == {}
    assert unlabelled == []
