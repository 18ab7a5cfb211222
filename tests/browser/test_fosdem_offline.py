"""Offline after one visit to FOSDEM's schedule on a phone: a session's page never opened shows the
saved schedule page pointing at its card, even when that card is in a slot the page lays out only
when needed (a big day's later slots)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from tests.helpers.browser_helpers import PHONE, new_visit
from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser


def test_a_late_saturday_session_never_opened_is_pointed_at_offline(browser: Browser, fosdem: Running) -> None:
    sessions = httpx.get(fosdem.url + "/api/sessions").json()["sessions"]
    late = max((s for s in sessions if s["start"].startswith("2025-02-01")), key=lambda s: s["start"])
    visit = new_visit(browser, fosdem)
    visit.page.set_viewport_size(PHONE)
    visit.open("/")
    visit.page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    visit.page.reload()  # now under the service worker's control
    visit.wait_ready()
    visit.context.set_offline(True)

    visit.open(f"/sessions/{late['id']}/")
    target = visit.page.eval_on_selector_all(".offline-target", "cards => cards.map(c => c.dataset.sessionId)")
    background = visit.page.evaluate("getComputedStyle(document.body).backgroundColor")
    visit.forget_offline_errors()
    visit.context.close()

    assert target == [late["id"]]
    assert background == "rgb(244, 246, 249)"
    assert visit.console_errors == []
