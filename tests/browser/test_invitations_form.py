"""The "Send my picks to my calendar by e-mail" form in real Chromium against `confcal serve`
(its jobs in process) and a real SMTP server on loopback: hidden where the server sends no mail;
where it does, asking shows the pending state, the link confirms, the invitation arrives, the
form passes axe, and stopping with "remove" sends the CANCEL."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.helpers.axe import AXE, RUN, TAGS
from tests.helpers.browser_helpers import PICK, Visit, mark_when_read, new_visit, stop_during_read, unavailable
from tests.helpers.serve_process import Running, running_confcal
from tests.helpers.smtp_server import SmtpServer, running_smtp

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

ADDRESS = "ada.lovelace@mail.example.net"


@pytest.fixture(scope="module")
def smtp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SmtpServer]:
    with running_smtp(tmp_path_factory.mktemp("smtp")) as server:
        yield server


@pytest.fixture(scope="module")
def mailing(tmp_path_factory: pytest.TempPathFactory, smtp: SmtpServer) -> Iterator[Running]:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in smtp.env.items():
            patch.setenv(name, value)
        with running_confcal(tmp_path_factory.mktemp("mail-serve")) as running:
            yield running


def pick_first(visit: Visit) -> None:
    button = visit.page.locator(PICK).first
    button.evaluate("b => b.scrollIntoView({block: 'center'})")
    with visit.page.expect_response(lambda r: r.url.endswith("/api/picks") and r.request.method == "POST"):
        button.click()
    visit.page.click("#picks-toggle")


def confirm_link(smtp: SmtpServer) -> str:
    (message,) = smtp.delivered
    text = message.message.get_body(("plain",))
    assert text is not None
    found = re.search(r"http://\S+/api/invitations/confirm/[A-Za-z0-9_-]+", text.get_content())
    assert found is not None
    return found.group(0)


def test_without_mail_the_option_stays_hidden(visit: Visit) -> None:
    visit.open("/")
    pick_first(visit)
    visit.page.wait_for_selector("#caldav:visible")
    # The section is hidden from the start and stays so once the state says "not offered": no
    # change in the document tells that the page has read the state, the mark does. And the
    # panel is open, or the section would be hidden with it whatever the page did.
    read = mark_when_read(visit.page, "/invitations")

    with visit.page.expect_response(lambda r: r.url.endswith("/invitations")):
        visit.page.reload()
        visit.wait_ready()
    visit.page.click("#picks-toggle")
    visit.page.wait_for_selector(read, state="attached")

    assert visit.page.is_hidden("#invitations")


def test_ask_confirm_receive_and_stop(browser: Browser, mailing: Running, smtp: SmtpServer, tmp_path: Path) -> None:
    if not AXE.exists():
        unavailable(f"{AXE} is missing (npm ci --prefix tests/browser)")
    visit = new_visit(browser, mailing)
    visit.open("/")
    pick_first(visit)
    visit.page.wait_for_selector("#invitations:visible")

    visit.page.fill("#invitations-email", ADDRESS)
    with visit.page.expect_response(lambda r: r.url.endswith("/invitations") and r.request.method == "POST"):
        visit.page.click("#invitations-submit")
    visit.page.wait_for_selector("#invitations-stop-line:visible")
    pending = visit.page.text_content("#invitations-status")
    confirmed = httpx.get(confirm_link(smtp))
    arrived = smtp.wait_for(2)
    visit.page.reload()
    visit.wait_ready()
    visit.page.click("#picks-toggle")
    # The section is hidden, and the form with it, until the state is fetched; the stop line
    # shows in the same step that fills the status and hides the form for an active state.
    visit.page.wait_for_selector("#invitations-stop-line:visible")
    form_shown = visit.page.is_visible("#invitations-form")
    active = visit.page.text_content("#invitations-status")
    visit.page.evaluate(AXE.read_text(encoding="utf-8"))
    violations = visit.page.evaluate(RUN, {"runOnly": {"type": "tag", "values": TAGS}})
    visit.page.check("#invitations-cancel")
    with visit.page.expect_response(lambda r: r.request.method == "DELETE"):
        visit.page.click("#invitations-stop")
    visit.page.wait_for_selector("#invitations-stop-line", state="hidden")
    stopped = visit.page.text_content("#invitations-status")
    visit.context.close()

    assert pending == "We sent a link to a***@mail.example.net: open it to start (it works for 24 hours)."
    assert confirmed.status_code == 200
    assert [m.method for m in arrived] == [None, "REQUEST"]
    assert (active or "").startswith("Invitations go to a***@mail.example.net.")
    assert form_shown is False
    assert violations == []
    assert [m.method for m in smtp.delivered] == [None, "REQUEST", "CANCEL"]
    assert stopped == "Stopped; the sessions sent were removed from your calendar."


def test_a_state_read_answered_after_the_stop_does_not_show_the_invitations_again(
    browser: Browser, mailing: Running, smtp: SmtpServer
) -> None:
    visit = new_visit(browser, mailing)
    # Every state read's answer reaches the page 1.5 s late: the one the page asks for while the
    # address is unconfirmed (10 s after asking) is still on its way when the stop is answered.
    read = mark_when_read(visit.page, "/invitations", late=1500)
    visit.open("/")
    pick_first(visit)
    visit.page.wait_for_selector(read, state="attached")  # the first read, with nothing asked
    visit.page.fill("#invitations-email", ADDRESS)
    with visit.page.expect_response(lambda r: r.url.endswith("/invitations") and r.request.method == "POST"):
        visit.page.click("#invitations-submit")
    visit.page.wait_for_selector("#invitations-stop-line:visible")
    stop_during_read(visit.page, "/invitations", "#invitations-stop", "#invitations-stop-line", asked_within=20_000)
    status = visit.page.text_content("#invitations-status")
    shown = visit.page.is_visible("#invitations-stop-line")
    visit.context.close()

    assert status == "Stopped; the sessions sent stay in your calendar."
    assert shown is False
