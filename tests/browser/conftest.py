"""Browser tests: `confcal serve` as a real process on a free loopback port with a fresh store (the
demo is seeded at start-up), driven by Playwright with Debian's chromium.

Playwright cannot download a browser on these machines, so chromium comes from apt
(tests/install-system-deps.sh). Without it the tests skip locally and fail on CI (CI=true), so a
CI run can never pass by not running them.

Every page gets a `Visit`: all requests and console errors are recorded, and the fixture checks
at teardown that none left the server's origin and that the console stayed clean.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.helpers.browser_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Visit,
    checked_visit,
    unavailable,
)
from tests.helpers.serve_process import Running, running_confcal, serving_schedule

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with running_confcal(tmp_path_factory.mktemp("browser-serve")) as running:
        yield running


@pytest.fixture(scope="module")
def fosdem(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Iterator[Running]:
    """`confcal serve` on FOSDEM 2025 (943 sessions, 29 rooms, two days): the size a page must
    stay usable at."""
    with serving_schedule(
        tmp_path_factory.mktemp("browser-fosdem"), shared_data / "fosdem_2025_schedule.xml"
    ) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Module scope, not session: Playwright's sync API keeps an asyncio loop running in this
    # thread while it is open, and every later test calling anyio.run or asyncio.run would fail.
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright (python) is not installed")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def visit(browser: Browser, server: Running) -> Iterator[Visit]:
    """A fresh context (empty localStorage) at desktop size, checked at teardown."""
    with checked_visit(browser, server) as current:
        yield current
