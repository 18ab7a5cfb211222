"""The "Sync to my calendar" form in real Chromium against `confcal serve` and a real Radicale
(htpasswd auth) on loopback, allowed with CONFCAL_CALDAV_ALLOW_PRIVATE=1: a wrong password shows
the server's reason, the right one shows the sync status, the form passes axe, detaching works."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.helpers.axe import AXE, RUN, TAGS
from tests.helpers.browser_helpers import Visit, new_visit, unavailable
from tests.helpers.push_helpers import PASSWORD, USER, DavServer
from tests.helpers.serve_process import Running, running_confcal

PICK = '[data-action="pick"]'


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


def test_attach_see_the_status_and_detach(browser: Any, server: Running, radicale: DavServer) -> None:
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
