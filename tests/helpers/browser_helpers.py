"""Helpers for the browser tests: the chromium to launch, the server under test, and a `Visit`
that records every request and console error of one browser context."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import httpx
import pytest

from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    # Only for the annotations: without playwright installed the browser tests skip, and this
    # module must still import for them to get that far.
    from playwright.sync_api import Browser, BrowserContext, ElementHandle, Page, ViewportSize

# Debian's chromium; CONFCAL_CHROMIUM points elsewhere (e.g. to check the CI=true failure).
CHROMIUM = Path(os.environ.get("CONFCAL_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "browser"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1440, "height": 900}


def unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests cannot run on CI: {reason}")
    pytest.skip(reason)


@dataclass
class Visit:
    """One browser context on the test server, with what it requested and logged."""

    server: Running
    context: BrowserContext
    page: Page
    requests: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)

    def open(self, path: str = "/") -> None:
        self.page.goto(self.server.url + path)
        self.wait_ready()

    def wait_ready(self) -> None:
        # The script marks the body once it has wired everything up.
        self.page.wait_for_selector("body[data-ready]", state="attached")

    def forget_offline_errors(self) -> None:
        """Chromium logs each request refused while offline; a test that goes offline expects them."""
        self.console_errors[:] = [e for e in self.console_errors if "ERR_INTERNET_DISCONNECTED" not in e]

    def foreign_requests(self) -> list[str]:
        origin = self.server.url + "/"
        return [url for url in self.requests if not url.startswith(origin)]

    def screenshot(self, name: str) -> Path:
        OUTPUT.mkdir(parents=True, exist_ok=True)
        target = OUTPUT / f"{name}.png"
        self.page.screenshot(path=str(target), full_page=True)
        return target


def new_visit(browser: Browser, server: Running, **context_options: Any) -> Visit:
    context = browser.new_context(viewport=DESKTOP, **context_options)
    page = context.new_page()
    visit = Visit(server, context, page)
    page.on("request", lambda request: visit.requests.append(request.url))
    page.on(
        "console",
        lambda message: visit.console_errors.append(message.text) if message.type == "error" else None,
    )
    page.on("pageerror", lambda error: visit.console_errors.append(str(error)))
    return visit


@contextmanager
def checked_visit(browser: Browser, server: Running) -> Iterator[Visit]:
    """A fresh context (empty localStorage) at desktop size, checked when it closes: no console
    error, no request off the server."""
    current = new_visit(browser, server)
    yield current
    current.context.close()
    assert current.console_errors == []
    assert current.foreign_requests() == []


# Marks the document once the page has dealt with the answer to its GET of a path ending in
# `ending`: in a task after the one that read the answer's JSON (or, where the page reads no body,
# after the one that got the answer), so whatever the page does with it synchronously is done.
# The answer reaches the page `late` milliseconds after it arrived.
READ_MARK = """
(() => {
  const ending = %s, mark = %s, late = %d;
  const fetch_ = window.fetch;
  const done = () => setTimeout(() => document.documentElement.setAttribute(mark, ""), 0);
  window.fetch = function (resource, options) {
    const answered = fetch_.apply(this, arguments);
    const request = resource instanceof Request ? resource : null;
    const method = ((options && options.method) || (request ? request.method : "GET")).toUpperCase();
    const url = new URL(request ? request.url : String(resource), location.href);
    if (method !== "GET" || !url.pathname.endsWith(ending)) return answered;
    const delayed = late ? answered.then(r => new Promise(resolve => setTimeout(resolve, late, r))) : answered;
    return delayed.then(response => {
      let reading = null;
      const json_ = response.json;
      response.json = function () {
        reading = json_.apply(this, arguments);
        return reading;
      };
      // The page's own continuation runs in the microtasks after the answer: by this task it
      // has asked for the body, if it ever does.
      setTimeout(() => (reading || Promise.resolve()).then(done, done), 0);
      return response;
    }, error => {
      done();
      throw error;
    });
  };
})();
"""


def mark_when_read(page: Page, ending: str, *, late: int = 0) -> str:
    """From the next document `page` loads on: the selector of a mark set once the page has
    acted on the answer to its GET of a path ending in `ending`. For a test that checks that the
    answer changed nothing, where no change in the document says the page is done with it.
    With `late`, each such answer reaches the page that many milliseconds after it came, as on
    a slow link (the server answered at once: with the state as it was then)."""
    mark = _mark_name(ending)
    page.add_init_script(READ_MARK % (json.dumps(ending), json.dumps(mark), late))
    return f"html[{mark}]"


def stop_during_read(page: Page, ending: str, stop: str, stop_line: str, *, asked_within: float) -> None:
    """Click `stop` (a button whose click sends a DELETE and hides `stop_line`) while the answer
    to the page's next GET of a path ending in `ending` is on its way (`mark_when_read` with
    `late`: the GET is asked within `asked_within` milliseconds); return once the page has dealt
    with both answers, the GET's last."""
    with page.expect_request(lambda r: r.url.endswith(ending) and r.method == "GET", timeout=asked_within):
        pass
    mark = _mark_name(ending)
    page.evaluate("mark => document.documentElement.removeAttribute(mark)", mark)  # wait for the next
    with page.expect_response(lambda r: r.request.method == "DELETE"):
        page.click(stop)
    page.wait_for_selector(stop_line, state="hidden")
    page.wait_for_selector(f"html[{mark}]", state="attached")


# Counts every layout shift not caused by input, from before the page's first paint: an observer
# installed ahead of the page's own scripts. Its entries reach it in a task of their own, so a
# reading also takes those not delivered yet (`takeRecords`).
LAYOUT_SHIFTS = """
window.__shift = 0;
window.__shifts = new PerformanceObserver(list => window.__countShifts(list.getEntries()));
window.__countShifts = entries => {
  for (const entry of entries) if (!entry.hadRecentInput) window.__shift += entry.value;
};
window.__shifts.observe({ type: "layout-shift", buffered: true });
"""
READ_SHIFTS = """() => {
  window.__countShifts(window.__shifts.takeRecords());
  return Math.round(window.__shift * 1000) / 1000;
}"""


def watch_layout_shifts(page: Page) -> None:
    """Count the layout shifts of the next document `page` loads (`layout_shift` reads them)."""
    page.add_init_script(LAYOUT_SHIFTS)


def layout_shift(page: Page) -> float:
    """The cumulative layout shift of the document since `watch_layout_shifts`, to a thousandth."""
    shift: float = page.evaluate(READ_SHIFTS)
    return shift


def _mark_name(ending: str) -> str:
    return "data-test-read-" + re.sub(r"[^a-z0-9]+", "-", ending.lower()).strip("-")


# A session's Pick button, pressed (aria-pressed="true") while the session is picked.
PICK = '[data-action="pick"]'


def picked_ids(page: Page) -> list[str]:
    """The ids of the sessions whose Pick button the schedule shows pressed, sorted."""
    ids: list[str] = page.eval_on_selector_all(
        f'#sessions {PICK}[aria-pressed="true"]',
        "buttons => buttons.map(b => b.closest('[data-session-id]').dataset.sessionId).sort()",
    )
    return ids


def attached(page: Page, selector: str) -> ElementHandle:
    """The element matching `selector`, once it is in the document (shown or not)."""
    handle = page.wait_for_selector(selector, state="attached")
    # Playwright returns None only when waiting for "detached" or "hidden".
    assert handle is not None
    return handle


def unfold(page: Page, summary: str) -> None:
    """Open a <details> from the keyboard (focus its summary, Enter), as a keyboard user does.

    Not a click: the subscribe section is laid out only when scrolled to (content-visibility),
    so on a loaded machine it can still be moving when a click's point is computed, and the
    click lands beside the summary.

    Returns once what the <details> holds is laid out: a feed's ways in wait in a <noscript> that
    the page's script replaces on the "toggle" event, which comes in a task after `open` is set."""
    from playwright.sync_api import expect

    first = page.locator(summary).first
    first.focus()
    page.keyboard.press("Enter")
    details = first.locator("xpath=..")
    expect(details).to_have_attribute("open", "")
    expect(details.locator(":scope > noscript.unfold")).to_have_count(0)


def api_sessions(server: Running) -> list[dict[str, Any]]:
    """The server's sessions as `/api/sessions` gives them."""
    # The API's JSON as it comes: a session's fields are of several types.
    found: list[dict[str, Any]] = httpx.get(server.url + "/api/sessions").json()["sessions"]
    return found


def strip_ids(visit: Visit, strip: str) -> list[str]:
    """The session ids the now-and-next box lists under `strip` (`[data-now]` or `[data-next]`), sorted."""
    found: list[str] = visit.page.eval_on_selector_all(
        f"#now-next {strip} [data-session-id]",
        "cards => cards.map(c => c.dataset.sessionId).sort()",
    )
    return found
