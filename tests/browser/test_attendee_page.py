"""The schedule page as an attendee keeps it open all day, in Chromium with a fixed
clock (Playwright's clock API): now and next, the time axis, session and speaker pages, the
subscribe picker and filters in the URL, picks where you are, offline use, dark mode and no
layout shift. Accessibility has its own module (test_accessibility.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx

from tests.helpers.browser_helpers import (
    DESKTOP,
    PHONE,
    PICK,
    Visit,
    api_sessions,
    attached,
    layout_shift,
    mark_when_read,
    new_visit,
    picked_ids,
    strip_ids,
    unfold,
    watch_layout_shifts,
)
from tests.helpers.serve_process import Running
from tests.helpers.trickle_proxy import trickling

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

CARD = "#sessions [data-session-id]"
DURING = "2026-04-07T11:05:00+02:00"  # three talks running, one starting at 11:15
LATER = "2026-04-07T11:20:00+02:00"


def ids_where(server: Running, test: Callable[[dict[str, Any]], bool]) -> list[str]:
    return sorted(s["id"] for s in api_sessions(server) if test(s))


def feed_uids(url: str) -> list[str]:
    return sorted(re.findall(r"\r\nUID:([^\r]+)", httpx.get(url).text))


def uids_of(server: Running, ids: list[str]) -> list[str]:
    return sorted(s["uid"] for s in api_sessions(server) if s["id"] in ids)


def visible_ids(visit: Visit) -> list[str]:
    found: list[str] = visit.page.eval_on_selector_all(
        CARD,
        "cards => cards.filter(c => c.offsetParent !== null).map(c => c.dataset.sessionId).sort()",
    )
    return found


def at(visit: Visit, moment: str) -> None:
    visit.page.clock.install(time=moment)


def pick(visit: Visit, session_id: str) -> None:
    with visit.page.expect_response(lambda r: "/api/picks" in r.url and r.request.method in ("POST", "PUT")):
        visit.page.click(f"#session-{session_id} {PICK}")


# ---- Now and next ----


def test_now_and_next_during_the_conference(visit: Visit, server: Running) -> None:
    at(visit, DURING)
    visit.open()

    now, next_ = strip_ids(visit, "[data-now]"), strip_ids(visit, "[data-next]")
    line = visit.page.locator("#now-line")
    jump = visit.page.get_attribute("#jump-now", "href")
    visit.screenshot("now-next-1440")

    assert now == ids_where(server, lambda s: s["start"] <= "2026-04-07T11:05" < s["end"])
    assert len(now) == 3
    # Next: every session starting in the next 30 minutes (after 11:05, up to 11:35).
    assert next_ == ids_where(server, lambda s: "2026-04-07T11:05" < s["start"][:16] <= "2026-04-07T11:35")
    assert line.is_visible()
    assert jump == "#now-line"


def test_now_lists_one_line_per_room_in_room_order(visit: Visit, server: Running) -> None:
    at(visit, DURING)
    visit.open()

    rooms = visit.page.locator("#now-next [data-now] .strip-room").all_text_contents()
    running = [s for s in api_sessions(server) if s["start"] <= "2026-04-07T11:05" < s["end"]]

    assert rooms == sorted(s["room"] for s in running)


def test_now_and_next_follow_the_clock_every_minute(visit: Visit, server: Running) -> None:
    at(visit, DURING)
    visit.open()

    visit.page.clock.run_for("15:00")

    assert strip_ids(visit, "[data-now]") == ids_where(server, lambda s: s["start"] <= "2026-04-07T11:20" < s["end"])
    assert strip_ids(visit, "[data-next]") == ids_where(
        server, lambda s: "2026-04-07T11:20" < s["start"][:16] <= "2026-04-07T11:50"
    )


def test_now_line_sits_between_the_slots_around_now(visit: Visit) -> None:
    at(visit, DURING)
    visit.open()

    line = visit.page.locator("#now-line").bounding_box()
    eleven = visit.page.locator('.slot[data-slot="11:00"] .slot-time').bounding_box()
    quarter = visit.page.locator('.slot[data-slot="11:15"] .slot-time').bounding_box()

    assert line and eleven and quarter
    assert eleven["y"] < line["y"] < quarter["y"]


def test_nothing_extra_before_or_after_the_conference(visit: Visit) -> None:
    shown = {}
    for moment in ("2026-04-06T12:00:00+02:00", "2026-04-08T09:00:00+02:00"):
        page = visit.context.new_page()
        page.clock.install(time=moment)
        page.goto(visit.server.url + "/")
        page.wait_for_selector("body[data-ready]", state="attached")
        shown[moment] = (page.is_visible("#now-next"), page.is_visible(".now-line"))
        page.close()

    assert list(shown.values()) == [(False, False), (False, False)]


# ---- The time axis ----


GRID_BOXES = """
() => [...document.querySelectorAll("#sessions .card")].map(card => {
  const box = card.getBoundingClientRect();
  return {
    id: card.dataset.sessionId, start: card.dataset.start, column: card.style.gridColumnStart,
    top: box.top, bottom: box.bottom, clipped: card.scrollHeight > card.clientHeight + 1,
  };
})
"""


def test_grid_cards_show_all_they_hold_and_keep_time_order(visit: Visit) -> None:
    visit.open()

    boxes = visit.page.evaluate(GRID_BOXES)
    tops_by_start: dict[str, set[int]] = {}
    for box in boxes:
        tops_by_start.setdefault(box["start"], set()).add(round(box["top"]))
    overlapping = []
    for column in {b["column"] for b in boxes}:
        ordered = sorted((b for b in boxes if b["column"] == column), key=lambda b: b["start"])
        overlapping += [(a["id"], b["id"]) for a, b in zip(ordered, ordered[1:]) if b["top"] < a["bottom"] - 1]

    assert [b["id"] for b in boxes if b["clipped"]] == []
    assert overlapping == []
    # Sessions starting together start on one line across the rooms.
    assert {start: tops for start, tops in tops_by_start.items() if max(tops) - min(tops) > 1} == {}


def test_grid_and_phone_list_have_time_headings(browser: Browser, server: Running) -> None:
    starts = sorted({s["start"][11:16] for s in api_sessions(server)})
    headings = {}
    for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
        visit = new_visit(browser, server)
        visit.page.set_viewport_size(size)
        visit.open()
        headings[name] = visit.page.locator(".slot-time:visible").all_text_contents()
        if name == "phone":
            visit.screenshot("phone-390")
        visit.context.close()

    assert headings["desktop"] == starts
    assert headings["phone"] == starts


def test_tab_goes_left_to_right_through_a_slot(visit: Visit, server: Running) -> None:
    visit.open()
    eleven = [s["id"] for s in api_sessions(server) if s["start"].startswith("2026-04-07T11:00")]

    lefts = visit.page.eval_on_selector_all(
        '.slot[data-slot="11:00"] a[data-session-link]',
        "links => links.map(a => a.getBoundingClientRect().left)",
    )

    assert len(lefts) == len(eleven) >= 2
    assert lefts == sorted(lefts)


# ---- Session and speaker pages ----


def test_card_links_to_its_session_page_and_on_to_the_speaker(browser: Browser, server: Running) -> None:
    visit = new_visit(browser, server, timezone_id="America/New_York")
    torchjd = next(s for s in api_sessions(server) if s["title"].startswith("TorchJD"))
    visit.open()

    visit.page.click(f"#session-{torchjd['id']} a[data-session-link]")
    visit.wait_ready()
    title = visit.page.text_content("h1")
    local = visit.page.text_content(".session-detail .local-time")
    url = visit.page.url
    visit.page.click("text=Valérian Rey")
    visit.wait_ready()
    speaker = visit.page.text_content("h1")
    feed = visit.page.get_attribute("a[data-speaker-feed]", "href")
    visit.context.close()

    assert url == f"{server.url}/sessions/{torchjd['id']}/"
    assert title == torchjd["title"]
    assert local is not None and local.endswith(" your time") and "5:45" in local
    assert speaker == "Valérian Rey"
    assert feed == "webcal://" + server.url.removeprefix("http://") + "/feeds/speaker/valerian-rey.ics"
    assert visit.console_errors == [] and visit.foreign_requests() == []


def test_pick_on_a_session_page_joins_the_picks(visit: Visit, server: Running) -> None:
    chosen = api_sessions(server)[3]
    visit.open(f"/sessions/{chosen['id']}/")

    with visit.page.expect_response(lambda r: "/api/picks" in r.url):
        visit.page.click(f".session-detail {PICK}")
    href = attached(visit.page, "a[data-personal-feed]").get_attribute("href")

    assert href is not None
    assert feed_uids(href) == [chosen["uid"]]
    assert visit.page.text_content("#picks-count") == "1"


# ---- Subscribe picker and filters in the URL ----


def test_filtered_feed_holds_exactly_the_sessions_shown_and_the_url_keeps_them(visit: Visit, server: Running) -> None:
    visit.open()

    visit.page.select_option("#filter-track", label="(no track)")
    visit.page.select_option("#filter-level", label="Intermediate")
    shown = visible_ids(visit)
    feed = visit.page.get_attribute("a[data-filtered-feed]", "href")
    url = visit.page.url
    visit.page.reload()
    visit.wait_ready()
    after_reload = visible_ids(visit)

    assert feed is not None
    assert url == f"{server.url}/?track=-none&level=intermediate"
    assert 0 < len(shown) < 28
    assert feed_uids(feed) == uids_of(server, shown)
    assert after_reload == shown
    assert visit.page.input_value("#filter-track") == "-none"


def test_search_is_kept_in_the_url_and_flags_the_feed_as_inexact(visit: Visit) -> None:
    visit.open("/?q=valerian")

    shown = visible_ids(visit)

    assert len(shown) == 1
    assert visit.page.is_visible("#view-note")


def test_picker_folds_speakers_levels_and_kinds_and_finds_them(visit: Visit) -> None:
    visit.open()
    folded_before = visit.page.is_visible("#feeds-speaker")
    in_view = visit.page.locator("#feeds-track .feed, #feeds-room .feed").count()

    unfold(visit.page, "#more-feeds > summary")
    visit.page.fill("#feed-search", "rey")
    found = visit.page.locator("#more-feeds .feed:visible .name").all_text_contents()

    assert folded_before is False
    assert in_view > 0
    assert found == ["Valérian Rey"]


# ---- Picks where you are ----


def test_picks_bar_stays_in_view_with_titles_and_overlap_warning(browser: Browser, server: Running) -> None:
    visit = new_visit(browser, server)
    visit.page.set_viewport_size(PHONE)
    helion, flexible = (
        next(s for s in api_sessions(server) if s["title"].startswith(prefix))
        for prefix in ("Helion", "Flexible Deployment")
    )
    visit.open()
    pick(visit, helion["id"])
    pick(visit, flexible["id"])
    visit.page.keyboard.press("End")
    visit.page.click("#picks-toggle")

    bar = visit.page.locator("#my-picks").bounding_box()
    titles = visit.page.locator("#picks-list a").all_text_contents()
    marked = visit.page.locator("#picks-list li.clashes a").all_text_contents()
    lines = visit.page.locator("#picks-list li").all_inner_texts()
    flag = visit.page.text_content("#picks-overlap-flag")
    subscribe_links = visit.page.locator("#my-picks a:visible[href^='webcal:']").count()
    visit.screenshot("phone-picks-390")
    visit.context.close()

    assert bar and bar["y"] + bar["height"] <= PHONE["height"] + 1
    assert titles == [helion["title"], flexible["title"]]
    # Overlaps are marked on their lines, not spelled out in sentences.
    assert marked == titles
    assert flag == "2 overlapping"
    # Each line says the day, time and room.
    assert lines[0] == f"Tue {helion['start'][11:16]} {helion['title']} {helion['room']} overlaps"
    assert subscribe_links == 1


def pick_offline_then_reconnect(visit: Visit, session_id: str) -> str | None:
    """Pick while offline, see the save fail, reconnect; the personal feed link once it is saved."""
    # In the middle of the screen: the offline notice reflows the page while it settles, and a
    # button at the bottom edge can end up under the picks bar for a moment.
    pick = visit.page.locator(f"#session-{session_id} {PICK}")
    pick.evaluate("button => button.scrollIntoView({block: 'center'})")
    pick.click()
    visit.page.wait_for_selector("#picks-error:visible")
    visit.context.set_offline(False)
    href: str | None = attached(visit.page, "a[data-personal-feed]").get_attribute("href")
    return href


def test_a_save_that_failed_offline_is_sent_when_the_connection_returns(visit: Visit, server: Running) -> None:
    chosen = api_sessions(server)[5]
    visit.open()

    visit.context.set_offline(True)
    href = pick_offline_then_reconnect(visit, chosen["id"])

    visit.forget_offline_errors()

    assert href is not None
    assert feed_uids(href) == [chosen["uid"]]
    assert visit.page.is_hidden("#picks-error")


def test_a_pick_made_while_the_saved_picks_are_read_is_kept(visit: Visit, server: Running) -> None:
    first, second = api_sessions(server)[2:4]
    visit.open()
    with visit.page.expect_response(lambda r: r.url.endswith("/api/picks") and r.request.method == "POST") as made:
        visit.page.click(f"#session-{first['id']} {PICK}")
    token = made.value.json()["token"]
    # The saved set's answer reaches the page 1.5 s late, as on a slow link: the second pick is
    # made while the page is still reading it.
    read = mark_when_read(visit.page, f"/api/picks/{token}", late=1500)
    visit.page.reload()
    visit.wait_ready()

    pick(visit, second["id"])
    visit.page.wait_for_selector(read, state="attached")
    pressed = picked_ids(visit.page)
    saved = httpx.get(f"{server.url}/api/picks/{token}").json()["sessions"]

    assert sorted(saved) == sorted([first["id"], second["id"]])
    assert pressed == sorted([first["id"], second["id"]])


def test_share_link_opens_the_same_picks_in_another_browser(browser: Browser, server: Running) -> None:
    chosen = api_sessions(server)[8]
    first = new_visit(browser, server)
    first.open()
    pick(first, chosen["id"])
    feed = first.page.get_attribute("a[data-personal-feed]", "href")
    share = first.page.input_value("#picks-share")
    first.context.close()

    second = new_visit(browser, server)
    second.page.goto(share)
    second.wait_ready()
    href = attached(second.page, "a[data-personal-feed]").get_attribute("href")
    pressed = picked_ids(second.page)
    address = second.page.url
    second.context.close()

    assert href == feed
    assert pressed == [chosen["id"]]
    assert "picks=" not in address
    assert second.console_errors == [] and second.foreign_requests() == []


def test_a_new_tab_with_nothing_picked_shows_no_error(visit: Visit) -> None:
    visit.open()

    assert visit.page.is_hidden("#picks-error")
    assert visit.page.text_content("#picks-count") == "0"


# ---- Offline ----


def test_after_one_visit_the_page_opens_offline_and_saves_picks_later(visit: Visit, server: Running) -> None:
    chosen = api_sessions(server)[11]
    visit.open()
    visit.page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    visit.page.reload()  # now under the service worker's control
    visit.wait_ready()

    visit.context.set_offline(True)
    visit.page.reload()
    visit.wait_ready()
    # The status says "You are offline." at once and the fetch date only once the page's cache
    # lookup answers, which the ready mark does not wait for.
    # Imported here so a machine without Playwright skips (conftest) instead of failing to collect.
    from playwright.sync_api import expect

    expect(visit.page.locator("#data-status")).to_have_text(
        re.compile("^You are offline: this schedule was fetched on ")
    )
    status = visit.page.text_content("#data-status")
    cards = visit.page.locator(CARD).count()
    href = pick_offline_then_reconnect(visit, chosen["id"])
    visit.forget_offline_errors()

    assert cards == 28
    assert status is not None and status.startswith("You are offline: this schedule was fetched on ")
    assert href is not None and feed_uids(href) == [chosen["uid"]]


def test_offline_a_session_or_speaker_page_never_opened_is_shown_styled_in_the_saved_schedule(
    visit: Visit, server: Running
) -> None:
    chosen = api_sessions(server)[5]
    speaker = "valerian-rey"
    visit.open()
    visit.page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    visit.page.reload()  # now under the service worker's control
    visit.wait_ready()
    visit.context.set_offline(True)

    shown = {}
    for path in (f"/sessions/{chosen['id']}/", f"/speakers/{speaker}/"):
        visit.open(path)
        shown[path] = visit.page.evaluate(
            """() => ({
              background: getComputedStyle(document.body).backgroundColor,
              status: document.getElementById("data-status").textContent,
              target: [...document.querySelectorAll(".offline-target")].map(c => c.dataset.sessionId),
              speakers: [...document.querySelectorAll(".offline-target")].map(c => c.dataset.speaker),
            })"""
        )
    visit.forget_offline_errors()

    session_page, speaker_page = shown.values()
    assert session_page["background"] == "rgb(244, 246, 249)"  # the stylesheet's page colour: styled
    assert (
        session_page["status"]
        == "You are offline and this page was not saved: here is the session in the saved schedule."
    )
    assert session_page["target"] == [chosen["id"]]
    assert speaker_page["background"] == "rgb(244, 246, 249)"
    assert len(speaker_page["target"]) == 1 and speaker in speaker_page["speakers"][0].split()


# ---- Finish ----


def test_dark_mode_follows_the_system(browser: Browser, server: Running) -> None:
    colours = {}
    for scheme in ("light", "dark"):
        visit = new_visit(browser, server, color_scheme=scheme)
        visit.open()
        colours[scheme] = visit.page.evaluate("getComputedStyle(document.body).backgroundColor")
        if scheme == "dark":
            visit.screenshot("desktop-dark-1440")
        visit.context.close()

    assert colours == {"light": "rgb(244, 246, 249)", "dark": "rgb(18, 22, 28)"}


def test_no_layout_shift_while_loading(browser: Browser, server: Running) -> None:
    shifts = {}
    # Through a slow network the page is painted piece by piece as it arrives, so every state
    # of a partly-arrived page is painted and counted.
    with trickling(server.url) as slow_url:
        for zone in ("Europe/Paris", "America/New_York"):
            for name, size in (("desktop", DESKTOP), ("phone", PHONE)):
                visit = new_visit(browser, replace(server, url=slow_url), timezone_id=zone)
                visit.page.set_viewport_size(size)
                watch_layout_shifts(visit.page)
                visit.open()
                visit.page.wait_for_load_state("load")
                shifts[zone, name] = layout_shift(visit.page)
                visit.context.close()

    # Filters, picks bar and Pick buttons have their space from the start: nothing moves.
    assert [shifts["Europe/Paris", name] for name in ("desktop", "phone")] == [0, 0]
    # A viewer in another zone gets their own times added to each card, which may reflow a
    # line; it stays within the goal of a cumulative layout shift under 0.05.
    assert all(shifts["America/New_York", name] < 0.05 for name in ("desktop", "phone"))


def test_one_day_event_has_no_day_tabs(visit: Visit) -> None:
    visit.open()

    assert visit.page.locator(".day-tabs").count() == 0
