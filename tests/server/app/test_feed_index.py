"""The page of a kind too long to list on the schedule pages (`subscribe/{kind}/`): every feed of
the kind with the entries the schedule pages list, the bytes a build writes, 404 otherwise."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette

from server.links import Site
from server.pages.subscribe import LISTED_FEEDS
from server.snapshot.published import Published
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.build_inspection import site_files
from tests.helpers.crowded import SLUG, crowded
from tests.helpers.feed_groups import feed_groups

BASE = "https://cal.example.org"
SPEAKERS = LISTED_FEEDS + 1


@pytest.fixture
def crowded_http(store: Store) -> Http:
    store.ingest(crowded(SPEAKERS))
    return Http(create_app(store, base_url=BASE, clock=lambda: NOW), default_headers={"accept-encoding": "identity"})


def test_the_page_lists_every_feed_of_the_kind_with_all_its_ways_in(crowded_http: Http) -> None:
    feeds = [f for f in crowded_http.get("/api/feeds").json_doc()["feeds"] if f["kind"] == "speaker"]

    page = crowded_http.get("/subscribe/speaker/")
    groups = feed_groups(page.text)

    assert (page.status, list(groups)) == (200, ["speaker"])
    assert len(groups["speaker"].entries) == SPEAKERS
    hrefs = {href.replace("&amp;", "&") for href, _ in groups["speaker"].links}
    two_down = {"../../" + f["url"].removeprefix("/") for f in feeds}  # the download links
    pages = {"../../speakers/" + f["slug"] + "/" for f in feeds}  # each name links to its speaker's page
    assert {h for h in hrefs if not h.startswith("https://outlook")} == (
        {f["webcal"] for f in feeds} | {f["google"] for f in feeds} | two_down | pages
    )
    assert len([h for h in hrefs if h.startswith("https://outlook")]) == SPEAKERS


def test_the_page_is_served_as_built_under_every_base_with_etag_and_304(store: Store, crowded_http: Http) -> None:
    stored = store.live()
    assert stored is not None
    files = dict(site_files(Published(stored, now=NOW, base_url=BASE), Site.of(BASE)))

    reply = crowded_http.get("/subscribe/speaker/")
    again = crowded_http.get("/subscribe/speaker/", if_none_match=reply.headers["etag"])

    assert [path for path in files if path.startswith("subscribe/")] == ["subscribe/speaker/index.html"]
    assert reply.content == files["subscribe/speaker/index.html"]
    assert crowded_http.get(f"/c/{SLUG}/subscribe/speaker/").content == reply.content
    assert (again.status, again.content) == (304, b"")


@pytest.mark.parametrize(
    "path", ["/subscribe/room/", "/subscribe/all/", "/subscribe/nope/", f"/c/{SLUG}/subscribe/track/"]
)
def test_a_kind_listed_on_the_schedule_pages_or_no_kind_has_no_page(crowded_http: Http, path: str) -> None:
    assert crowded_http.get(path).status == 404


def test_the_seed_has_no_feed_index_page(demo_app: Starlette) -> None:
    assert Http(demo_app).get("/subscribe/speaker/").status == 404
