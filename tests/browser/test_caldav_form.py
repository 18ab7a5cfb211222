"""The "Sync to my calendar" form in real Chromium against `confcal serve` and a real Radicale
(htpasswd auth) on loopback, allowed with CONFCAL_CALDAV_ALLOW_PRIVATE=1: a wrong password shows
the server's reason, the right one shows the sync status, the form passes axe, detaching works;
from the server's root the calendars are listed to choose from, a new one can be made, and the
status ends on the sync's outcome; the presets fill the server and Google's says why not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.helpers.axe import AXE, RUN, TAGS
from tests.helpers.browser_helpers import PICK, Visit, mark_when_read, new_visit, stop_during_read, unavailable
from tests.helpers.push_helpers import PASSWORD, USER, DavServer
from tests.helpers.serve_process import Running, running_confcal

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CONFCAL_CALDAV_ALLOW_PRIVATE", "1")
        with running_confcal(tmp_path_factory.mktemp("caldav-serve")) as running:
            yield running


def pick_first(visit: Visit) -> str:
    button = visit.page.locator(PICK).first
    button.evaluate("b => b.scrollIntoView({block: 'center'})")
    with visit.page.expect_response(lambda r: r.url.endswith("/api/picks") and r.request.method == "POST") as created:
        button.click()
    token: str = created.value.json()["token"]
    return token


def attach(visit: Visit, url: str, password: str) -> None:
    visit.page.fill("#caldav-url", url)
    visit.page.fill("#caldav-username", USER)
    visit.page.fill("#caldav-password", password)
    with visit.page.expect_response(lambda r: r.url.endswith("/caldav") and r.request.method == "POST"):
        visit.page.click("#caldav-submit")


def test_attach_see_the_status_and_detach(browser: Browser, server: Running, radicale: DavServer) -> None:
    if not AXE.exists():
        unavailable(f"{AXE} is missing (npm ci --prefix tests/browser)")
    visit = new_visit(browser, server)
    visit.open("/")
    token = pick_first(visit)
    visit.page.click("#picks-toggle")
    visit.page.wait_for_selector("#caldav:visible")
    calendar = radicale.new_calendar()

    attach(visit, calendar, "wrong-password")
    # The response has arrived but the script may not have read its body yet: the error line is
    # shown only after its text is set.
    visit.page.wait_for_selector("#caldav-error:visible")
    refused = visit.page.text_content("#caldav-error")
    attach(visit, calendar, PASSWORD)
    visit.page.wait_for_selector("#caldav-detach-line:visible")
    status = visit.page.text_content("#caldav-summary")
    form_hidden = visit.page.is_hidden("#caldav-form")
    visit.page.evaluate(AXE.read_text(encoding="utf-8"))
    violations = visit.page.evaluate(RUN, {"runOnly": {"type": "tag", "values": TAGS}})
    stored = httpx.get(f"{server.url}/api/picks/{token}/caldav").json()
    visit.screenshot("caldav-attached")
    with visit.page.expect_response(lambda r: r.request.method == "DELETE"):
        visit.page.click("#caldav-detach")
    # Hidden in the same task that sets the summary, so the text is final once it is.
    visit.page.wait_for_selector("#caldav-detach-line", state="hidden")
    after = visit.page.text_content("#caldav-summary")

    assert refused == (
        f"Your calendar could not be attached: cannot log in to {calendar} (401): wrong user name or password?"
    )
    assert status == f"Syncing: {calendar} ({USER})"
    assert form_hidden is True
    assert violations == [], json.dumps(violations, indent=1)
    assert (stored["url"], stored["state"]) == (calendar, "active")
    assert after == "Stopped syncing."
    assert httpx.get(f"{server.url}/api/picks/{token}/caldav").json()["state"] == "detached"
    assert visit.page.input_value("#caldav-password") == ""
    # The refused attach is the one request the console reports.
    assert [e for e in visit.console_errors if "422" not in e] == []
    assert visit.foreign_requests() == []
    visit.context.close()


def test_a_status_read_answered_after_the_detach_does_not_show_the_calendar_again(
    browser: Browser, server: Running, radicale: DavServer
) -> None:
    visit = new_visit(browser, server)
    # Every status read's answer reaches the page 1.5 s late: the one the page asks for while a
    # sync is pending (3 s after the attach) is still on its way when the detach is answered.
    read = mark_when_read(visit.page, "/caldav", late=1500)
    visit.open("/")
    pick_first(visit)
    visit.page.click("#picks-toggle")
    visit.page.wait_for_selector(read, state="attached")  # the first read, with nothing attached
    calendar = radicale.new_calendar()
    attach(visit, calendar, PASSWORD)
    visit.page.wait_for_selector("#caldav-detach-line:visible")
    stop_during_read(visit.page, "/caldav", "#caldav-detach", "#caldav-detach-line", asked_within=10_000)
    summary = visit.page.text_content("#caldav-summary")
    shown = visit.page.is_visible("#caldav-detach-line")
    visit.context.close()

    assert summary == "Stopped syncing."
    assert shown is False


def open_form(browser: Browser, server: Running) -> tuple[Visit, str]:
    visit = new_visit(browser, server)
    visit.open("/")
    token = pick_first(visit)
    visit.page.click("#picks-toggle")
    visit.page.wait_for_selector("#caldav:visible")
    return visit, token


def test_from_the_servers_root_choose_a_new_calendar_and_see_the_sync_end(
    browser: Browser, server: Running, radicale: DavServer
) -> None:
    if not AXE.exists():
        unavailable(f"{AXE} is missing (npm ci --prefix tests/browser)")
    visit, token = open_form(browser, server)
    existing = radicale.new_calendar()
    root = f"http://127.0.0.1:{radicale.port}/"

    visit.page.fill("#caldav-url", root)
    visit.page.fill("#caldav-username", USER)
    visit.page.fill("#caldav-password", PASSWORD)
    visit.page.click("#caldav-submit")
    visit.page.wait_for_selector("#caldav-choice:visible")
    offered = visit.page.eval_on_selector_all("#caldav-choices input", "inputs => inputs.map(i => i.value)")
    visit.page.evaluate(AXE.read_text(encoding="utf-8"))
    violations = visit.page.evaluate(RUN, {"runOnly": {"type": "tag", "values": TAGS}})
    visit.screenshot("caldav-choose")
    visit.page.fill("#caldav-new-name", "My conference picks")
    visit.page.check("#caldav-new")
    with visit.page.expect_response(lambda r: r.url.endswith("/caldav") and r.request.method == "POST") as made:
        visit.page.click("#caldav-use")
    visit.page.wait_for_function(
        "() => document.getElementById('caldav-summary').textContent.startsWith('Synced: ')", timeout=60_000
    )
    final = visit.page.text_content("#caldav-summary")
    detail = visit.page.text_content("#caldav-detail")
    visit.screenshot("caldav-new-calendar-synced")
    stored = httpx.get(f"{server.url}/api/picks/{token}/caldav").json()

    assert existing in offered
    assert violations == [], json.dumps(violations, indent=1)
    assert made.value.status == 201
    assert stored["url"].startswith(f"{root}{USER}/") and stored["url"] != existing
    assert (stored["state"], stored["last_result"], stored["counts"]["created"]) == ("active", "ok", 1)
    assert final == f"Synced: {stored['url']} ({USER})"
    assert detail is not None and detail.endswith("created 1, updated 0, deleted 0, unchanged 0, conflicts 0.")
    assert visit.page.input_value("#caldav-password") == ""
    visit.context.close()


def test_from_the_servers_root_an_existing_calendar_is_chosen_by_its_name(
    browser: Browser, server: Running, radicale: DavServer
) -> None:
    visit, token = open_form(browser, server)
    existing = radicale.new_calendar()

    visit.page.fill("#caldav-url", f"http://127.0.0.1:{radicale.port}")
    visit.page.fill("#caldav-username", USER)
    visit.page.fill("#caldav-password", PASSWORD)
    visit.page.click("#caldav-submit")
    visit.page.wait_for_selector("#caldav-choice:visible")
    visit.page.check(f'#caldav-choices input[value="{existing}"]')
    with visit.page.expect_response(lambda r: r.url.endswith("/caldav") and r.request.method == "POST") as chosen:
        visit.page.click("#caldav-use")
    visit.page.wait_for_selector("#caldav-detach-line:visible")
    stored = httpx.get(f"{server.url}/api/picks/{token}/caldav").json()

    assert chosen.value.status == 201
    assert (stored["url"], stored["state"]) == (existing, "active")
    assert visit.page.is_hidden("#caldav-choice") is True
    visit.context.close()


def test_the_presets_fill_the_server_and_google_says_why_it_needs_the_feed(browser: Browser, server: Running) -> None:
    visit, _ = open_form(browser, server)

    visit.page.click('[data-preset="fastmail"]')
    fastmail = (visit.page.input_value("#caldav-url"), visit.page.text_content("#caldav-preset-hint"))
    visit.page.click('[data-preset="google"]')
    google_hint = visit.page.text_content("#caldav-preset-hint")
    account_hidden = visit.page.is_hidden("#caldav-account")
    visit.page.click('[data-preset="icloud"]')
    icloud = visit.page.input_value("#caldav-url")

    assert fastmail[0] == "https://caldav.fastmail.com"
    assert fastmail[1] is not None and "app password" in fastmail[1]
    assert google_hint is not None and google_hint.startswith("Google Calendar offers no password access for CalDAV")
    assert account_hidden is True
    assert icloud == "https://caldav.icloud.com"
    assert visit.foreign_requests() == []
    visit.context.close()
