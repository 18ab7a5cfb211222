"""Search with JavaScript off: `?q=` is applied by the server, with the semantics of
the page's script, so a browser without JavaScript (or before the script runs) shows the same
cards for the same words. Each query is run both ways in Chromium and the shown cards compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.helpers.browser_helpers import Visit, new_visit
from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

CARD = "#sessions [data-session-id]"
QUERIES = ["valerian", "PyTorch", "junior talk", "master stage", "level: any", "zzz-nothing"]


def visible_ids(visit: Visit) -> list[str]:
    found: list[str] = visit.page.eval_on_selector_all(
        CARD,
        "cards => cards.filter(c => c.offsetParent !== null).map(c => c.dataset.sessionId).sort()",
    )
    return found


@pytest.fixture
def no_script(browser: Browser, server: Running) -> Iterator[Visit]:
    visit = new_visit(browser, server, java_script_enabled=False)
    yield visit
    visit.context.close()
    assert visit.foreign_requests() == []


def shown_without_script(visit: Visit, query: str) -> list[str]:
    visit.page.goto(visit.server.url + "/?" + httpx.QueryParams({"q": query}).__str__())
    return visible_ids(visit)


def shown_by_script(visit: Visit, query: str) -> list[str]:
    visit.page.fill("#filter-search", query)
    return visible_ids(visit)


def test_valerian_finds_the_accented_speaker_without_javascript(no_script: Visit, server: Running) -> None:
    sessions = httpx.get(server.url + "/api/sessions").json()["sessions"]

    shown = shown_without_script(no_script, "valerian")

    assert [next(s["title"] for s in sessions if s["id"] == i) for i in shown] == [
        "TorchJD: Jacobian Descent in PyTorch"
    ]
    assert no_script.page.input_value("#filter-search") == "valerian"
    assert no_script.page.inner_text("#result-count") == "Showing 1 of 28 sessions"


def test_server_and_script_show_the_same_cards_for_each_query(no_script: Visit, visit: Visit) -> None:
    visit.open()

    without = {q: shown_without_script(no_script, q) for q in QUERIES}
    scripted = {q: shown_by_script(visit, q) for q in QUERIES}

    assert without == scripted
    # Not all the same answer: the queries tell sessions apart.
    assert len({tuple(ids) for ids in without.values()}) == len(QUERIES)


def test_search_combines_with_a_facet_filter_as_the_script_does(
    no_script: Visit, visit: Visit, server: Running
) -> None:
    visit.open()
    visit.page.select_option("#filter-track", label="(no track)")
    everything_without_track = visible_ids(visit)

    no_script.page.goto(server.url + "/?track=-none&q=the")
    without = visible_ids(no_script)
    scripted = shown_by_script(visit, "the")

    assert without == scripted
    assert 0 < len(without) < len(everything_without_track)
