"""The schedule pages' subscribe section: a kind of more feeds than `LISTED_FEEDS` is its group's
heading and one link to the kind's own page (feed_index.py); every other group lists its feeds."""

from __future__ import annotations

import dataclasses

from starlette.applications import Starlette

from feeds.model import Schedule
from server.links import Site
from server.pages.feed_index import feed_index_representation
from server.pages.page import page_representation
from server.pages.subscribe import LISTED_FEEDS, subscribe_groups
from server.snapshot.published import Published
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.crowded import crowded
from tests.helpers.feed_groups import feed_groups

SITE = Site.of("https://cal.example.org")


def crowded_app(store: Store, speakers: int) -> Http:
    store.ingest(crowded(speakers))
    return Http(create_app(store, base_url="https://cal.example.org", clock=lambda: NOW))


def test_a_kind_over_the_limit_is_one_link_on_every_schedule_page(store: Store) -> None:
    http = crowded_app(store, LISTED_FEEDS + 1)

    front = feed_groups(http.get("/").text)
    day = feed_groups(http.get("/days/2025-02-02/").text)

    assert (front["speaker"].entries, front["speaker"].links) == (
        [],
        [("subscribe/speaker/", "All 101 speakers' feeds")],
    )
    assert (day["speaker"].entries, day["speaker"].links) == (
        [],
        [("../../subscribe/speaker/", "All 101 speakers' feeds")],
    )
    # The other groups are listed as before.
    assert [len(front[kind].entries) for kind in ("all", "track", "room", "day")] == [1, 3, 10, 2]


def test_a_kind_at_the_limit_is_listed_in_full(store: Store) -> None:
    http = crowded_app(store, LISTED_FEEDS)

    groups = feed_groups(http.get("/").text)

    assert len(groups["speaker"].entries) == LISTED_FEEDS
    assert not [href for href, _ in groups["speaker"].links if "subscribe/" in href]


def test_the_seed_lists_every_feed_and_links_no_feed_index(demo_app: Starlette) -> None:
    http = Http(demo_app)
    feeds = http.get("/api/feeds").json_doc()["feeds"]

    groups = feed_groups(http.get("/").text)

    assert sum(len(group.entries) for group in groups.values()) == len(feeds)
    assert [href for group in groups.values() for href, _ in group.links if "subscribe/" in href] == []


def shown(schedule: Schedule, kind: str) -> tuple[object, ...]:
    published = Published(schedule, now=NOW)
    found: tuple[object, ...] = next(g["shown"] for g in subscribe_groups(published, SITE) if g["kind"] == kind)
    return found


def test_the_link_group_is_keyed_on_what_it_shows_not_on_each_feed() -> None:
    """A build keeps a group's part by its `shown` (build_pages.PageParts.group)."""
    schedule = crowded(LISTED_FEEDS + 1)
    # Speaker 000 joins the second talk: a feed's number of events changes, the number of feeds not.
    first, second, *rest = schedule.sessions
    joined = dataclasses.replace(second, speakers=(*first.speakers, *second.speakers))
    busier = dataclasses.replace(schedule, sessions=(first, joined, *rest))

    link = shown(schedule, "speaker")

    assert link == ("speaker", "Speakers", 101, "subscribe/speaker/", "All 101 speakers' feeds")
    assert shown(busier, "speaker") == link
    assert shown(crowded(LISTED_FEEDS + 2), "speaker")[2:] == (102, "subscribe/speaker/", "All 102 speakers' feeds")
    # A listed group shows no feed's number of events either: its key does not change.
    assert shown(crowded(LISTED_FEEDS), "speaker") == shown(
        dataclasses.replace(busier, sessions=busier.sessions[:LISTED_FEEDS]), "speaker"
    )


def test_schedule_pages_show_no_feed_counts_but_a_kinds_own_page_does() -> None:
    schedule = crowded(LISTED_FEEDS + 1)
    published = Published(schedule, now=NOW)

    page = page_representation(published, SITE).body.decode("utf-8")
    speakers = feed_index_representation(published, SITE, "speaker").body.decode("utf-8")

    assert 'class="count"' not in page.split('id="subscribe"', 1)[1]
    assert speakers.count('class="count"') == LISTED_FEEDS + 1
