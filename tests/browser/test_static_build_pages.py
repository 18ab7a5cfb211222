"""A static build (`confcal build`) of the demo served by Python's http.server, in Chromium: the
pages offer nothing that fails on a static host (no Pick, no personal feed, no reminders, no feed
of a query string the host ignores) and say so; a view of one filter subscribes to that filter's
own feed file."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.helpers.browser_helpers import Visit, new_visit
from tests.helpers.serve_process import Running, confcal_command, free_port
from tests.helpers.static_host import static_host

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def static_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    work = tmp_path_factory.mktemp("static-demo")
    db, site = str(work / "store.sqlite"), work / "site"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    subprocess.run([*confcal_command(), "build", "--quiet", "--db", db, "--base-url", url, str(site)], check=True)
    with static_host(site, port):
        yield Running(url, db)


@pytest.fixture
def on_static(browser: Browser, static_demo: Running) -> Iterator[Visit]:
    visit = new_visit(browser, static_demo)
    visit.open("/")
    yield visit
    visit.context.close()
    assert (visit.console_errors, visit.foreign_requests()) == ([], [])


def test_no_control_that_needs_a_server_is_offered(on_static: Visit) -> None:
    page = on_static.page

    shown = {
        "pick": page.locator(".pick:visible").count(),
        "picks bar": page.is_visible("#my-picks"),
        "reminders": page.is_visible("#feed-alarm"),
        "only my picks": page.is_visible("#filter-picked"),
    }
    note = page.inner_text("#static-note")

    assert shown == {"pick": 0, "picks bar": False, "reminders": False, "only my picks": False}
    assert note.startswith("This is a static copy of the schedule: picking sessions, your own feed")


def test_a_view_of_one_filter_subscribes_to_that_filters_own_feed(on_static: Visit, static_demo: Running) -> None:
    page = on_static.page
    track = page.eval_on_selector("#filter-track", "s => s.options[1].value")

    page.select_option("#filter-track", track)
    feed = page.get_attribute("a[data-filtered-feed]", "href")
    what = page.inner_text("a[data-filtered-webcal]")

    assert feed == f"{static_demo.url}/feeds/track/{track}.ics"
    assert httpx.get(feed).status_code == 200
    assert what.startswith("Subscribe to the sessions of track ")


def test_a_view_of_several_filters_offers_no_feed_and_says_why(on_static: Visit) -> None:
    page = on_static.page
    track = page.eval_on_selector("#filter-track", "s => s.options[1].value")
    level = page.eval_on_selector("#filter-level", "s => s.options[1].value")

    page.select_option("#filter-track", track)
    page.select_option("#filter-level", level)

    assert page.locator(".this-view a:visible").count() == 0
    assert page.inner_text("#view-static").startswith("A feed of several filters at once needs a confcal server")
