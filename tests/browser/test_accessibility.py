"""axe-core (npm, tests/browser/node_modules) on every kind of page at desktop (1440) and phone
(390) widths, light and dark: WCAG 2.0-2.2 A/AA and best-practice rules, 0 violations.

axe is evaluated through Playwright (the DevTools protocol), not added as a <script>: the pages'
Content-Security-Policy rightly refuses inline scripts.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.helpers.axe import AXE, RUN, TAGS
from tests.helpers.browser_helpers import DESKTOP, PHONE, new_visit, unavailable, unfold
from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

SIZES = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        unavailable(f"{AXE} is missing (npm ci --prefix tests/browser)")
    return AXE.read_text(encoding="utf-8")


def paths(server: Running) -> dict[str, str]:
    sessions = httpx.get(server.url + "/api/sessions").json()["sessions"]
    torchjd = next(s for s in sessions if s["title"].startswith("TorchJD"))
    return {
        "schedule": "/",
        "session": f"/sessions/{torchjd['id']}/",
        "speaker": "/speakers/valerian-rey/",
        "track": "/tracks/training-systems/",
        "room": "/rooms/founders-cafe/",
        "tracks": "/tracks/",
        "speakers": "/speakers/",
    }


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_no_axe_violations(browser: Browser, server: Running, axe_source: str, size: str, scheme: str) -> None:
    # Axe's violations, as page.evaluate gives them: untyped JSON.
    found: dict[str, Any] = {}
    for name, path in paths(server).items():
        visit = new_visit(browser, server, color_scheme=scheme)
        visit.page.set_viewport_size(SIZES[size])
        visit.page.clock.install(time="2026-04-07T11:05:00+02:00")  # now and next shown
        visit.open(path)
        if name == "schedule":
            # Open what is folded, so its contents are checked too.
            unfold(visit.page, "#more-feeds > summary")
            visit.page.click("#picks-toggle")
        visit.page.evaluate(axe_source)
        violations = visit.page.evaluate(RUN, {"runOnly": {"type": "tag", "values": TAGS}})
        found[name] = violations
        visit.context.close()
        assert visit.console_errors == []

    assert {k: v for k, v in found.items() if v} == {}, json.dumps(found, indent=1)
