"""Change notes and reminders on the page, in Chromium: the subscribe picker's reminder choice
adds `?alarm=N` to the feed links, and "your picks changed" names a picked session that a re-ingest moved."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from server.cli import main
from tests.helpers.browser_helpers import Visit, mark_when_read, new_visit, unfold
from tests.helpers.serve_process import Running, running_confcal

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

CHANGES = Path(__file__).resolve().parents[1] / "fixtures" / "changes"
MOVED = "eebc480700"  # Compilers for Everyone: 11:00 Master Stage -> 12:00 Junior Stage in v2
KEPT = "545aadac37"  # Opening Keynote: the same in v2
SEEN = "localStorage.getItem('confcal:picks:change-conf-2026:version')"


# ---- The reminder choice (the demo conference) ----


def test_reminder_choice_adds_alarm_to_feed_links(visit: Visit) -> None:
    visit.open()
    unfold(visit.page, "#sub-all details.more > summary")  # its ways in are laid out when opened

    visit.page.select_option("#feed-alarm", "10")
    webcal = visit.page.get_attribute("#sub-all .subscribe", "href")
    copied = visit.page.input_value("#sub-all input.copy")
    google = visit.page.get_attribute("#sub-all .google", "href")
    download = visit.page.get_attribute("#sub-all .download", "href")
    calendar = httpx.get(copied).text
    visit.page.select_option("#feed-alarm", "")
    plain = visit.page.get_attribute("#sub-all .subscribe", "href")

    assert webcal is not None and webcal.startswith("webcal://") and webcal.endswith("/feeds/all.ics?alarm=10")
    assert copied.endswith("/feeds/all.ics?alarm=10")
    assert google is not None and parse_qs(urlsplit(google).query)["cid"] == [webcal]
    assert download == "/feeds/all.ics?alarm=10"
    assert calendar.count("BEGIN:VALARM") == calendar.count("BEGIN:VEVENT") > 0
    assert calendar.count("TRIGGER:-PT10M") == calendar.count("BEGIN:VEVENT")
    assert plain == webcal.removesuffix("?alarm=10")


def test_reminder_choice_is_kept_and_follows_the_filtered_view(visit: Visit) -> None:
    visit.open()
    visit.page.select_option("#feed-alarm", "30")

    visit.page.reload()
    visit.wait_ready()
    kept = visit.page.input_value("#feed-alarm")
    track = visit.page.eval_on_selector("#filter-track", "s => s.options[1].value")
    visit.page.select_option("#filter-track", track)
    filtered = visit.page.get_attribute("a[data-filtered-feed]", "href")

    assert kept == "30"
    assert filtered is not None
    assert parse_qs(urlsplit(filtered).query) == {"track": [track], "alarm": ["30"]}


# ---- Your picks changed (its own server: the test re-ingests) ----


@pytest.fixture
def changing(browser: Browser, tmp_path: Path) -> Iterator[Visit]:
    db = tmp_path / "store.sqlite"
    assert main(["ingest", "--db", str(db), str(CHANGES / "v1.ics")]) == 0
    with running_confcal(tmp_path) as running:
        current = new_visit(browser, running)
        yield current
        current.context.close()
        assert current.console_errors == []
        assert current.foreign_requests() == []


def wait_for_version(server: Running, version: int) -> None:
    for _ in range(300):  # the server polls the store every couple of seconds; not a timing assertion
        if httpx.get(server.url + "/api/changes").json()["version"] == version:
            return
        time.sleep(0.1)
    pytest.fail(f"the server did not publish version {version}")


def test_banner_names_the_moved_pick_until_dismissed(changing: Visit) -> None:
    page = changing.page
    changing.open()
    # A function, not an expression: Playwright evaluates an expression again at every poll,
    # which the page's CSP refuses once the poll runs outside its own call; a function is
    # evaluated once, in that call.
    page.wait_for_function(f"() => {SEEN} === '1'")
    for session in (MOVED, KEPT):
        with page.expect_response(lambda r: "/api/picks" in r.url and r.request.method in ("POST", "PUT")):
            page.click(f'#session-{session} [data-action="pick"]')

    assert main(["ingest", "--db", changing.server.db, str(CHANGES / "v2.ics")]) == 0
    wait_for_version(changing.server, 2)
    page.reload()
    changing.wait_ready()
    page.wait_for_selector("#picks-changed:not([hidden])")
    items = page.eval_on_selector_all("#picks-changed-list li", "items => items.map(i => i.textContent)")
    links = page.eval_on_selector_all("#picks-changed-list a", "links => links.map(a => a.getAttribute('href'))")
    changing.screenshot("picks-changed-1440")
    page.click("#picks-changed-dismiss")
    dismissed = page.is_hidden("#picks-changed")
    # The note is hidden from the start and stays so once the changes are read: no change in the
    # document tells that the page has read them, the mark does.
    read = mark_when_read(page, "/api/changes")
    page.reload()
    changing.wait_ready()
    page.wait_for_selector(read, state="attached")
    seen = page.evaluate(SEEN)

    assert items == [
        "Compilers for Everyone moved: Tue 7 Apr 11:00–11:30, Master Stage → Tue 7 Apr 12:00–12:30, Junior Stage"
    ]
    assert links == [f"sessions/{MOVED}/"]
    assert dismissed
    assert page.is_hidden("#picks-changed")
    assert seen == "2"
