"""A kind too long to list on the schedule page (server/pages/feed_index.py), in Chromium: the
group's link stays while the feed search narrows the other groups, and leads to the kind's own
page, whose feed links follow the reminder choice as the schedule page's do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from server.pages.subscribe import LISTED_FEEDS
from server.store import Store
from tests.helpers.browser_helpers import Visit, checked_visit, unfold
from tests.helpers.crowded import crowded
from tests.helpers.serve_process import Running, running_confcal

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

SPEAKERS = LISTED_FEEDS + 1


@pytest.fixture(scope="module")
def crowded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    work: Path = tmp_path_factory.mktemp("crowded-serve")
    db = str(work / "store.sqlite")
    with Store.open(db) as store:
        store.ingest(crowded(SPEAKERS))
    with running_confcal(work, db=db) as running:
        yield running


@pytest.fixture
def crowded_visit(browser: Browser, crowded_server: Running) -> Iterator[Visit]:
    with checked_visit(browser, crowded_server) as current:
        yield current


def test_the_link_survives_the_feed_search_and_leads_to_every_feed(crowded_visit: Visit) -> None:
    page = crowded_visit.page
    crowded_visit.open()
    unfold(page, "#more-feeds > summary")
    page.fill("#feed-search", "speaker 042")

    link = page.locator("#feeds-speaker a")
    shown = (link.is_visible(), link.text_content(), page.is_visible("#feeds-day"))
    link.click()
    crowded_visit.wait_ready()
    page.select_option("#feed-alarm", "10")
    webcals = page.eval_on_selector_all("#feeds-speaker .feed .subscribe", "links => links.map(a => a.href)")

    assert shown == (True, f"All {SPEAKERS} speakers' feeds", False)
    assert page.url == crowded_visit.server.url + "/subscribe/speaker/"
    assert len(webcals) == SPEAKERS
    assert all(href.startswith("webcal://") and href.endswith(".ics?alarm=10") for href in webcals)


def test_the_feed_search_narrows_a_kinds_own_page(crowded_visit: Visit) -> None:
    page = crowded_visit.page
    crowded_visit.open("/subscribe/speaker/")
    names = "#feeds-speaker .feed:visible .name"

    page.fill("#feed-search", "SPEAKER 04")  # every word, anywhere in the name, in any case
    found = page.locator(names).all_text_contents()
    page.fill("#feed-search", "")
    every = page.locator(names).count()

    assert found == ["Speaker 004", *(f"Speaker {i:03d}" for i in range(40, 50))]
    assert every == SPEAKERS
