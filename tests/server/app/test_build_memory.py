"""A build holds what it makes only while it writes it: each feed is rendered for its file and
not kept in the snapshot (a large conference's feeds are several times its all.ics)."""

from __future__ import annotations

import dataclasses
import gc
import weakref
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feeds.model import Session
from server.links import Site
from server.site.build_conferences import loader, write_conferences
from server.site.build_output import Output
from server.snapshot.conditional import Representation
from server.snapshot.patch import BIG
from server.snapshot.persistent import Chunked
from server.snapshot.published import Published
from server.store import Store
from server.store.report import ConferenceSummary
from server.web.demo import demo_schedule
from tests.helpers.demo_changes import repeated_weekly

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(str(tmp_path / "store.sqlite")) as opened:
        opened.ingest(demo_schedule(), now=NOW - timedelta(days=1))
        yield opened


def build(store: Store, site: Path, jobs: int, note: Callable[[Published], object]) -> None:
    """`confcal build` of `store` into `site`, each snapshot it loads passed to `note`."""
    load = loader(store, NOW)

    def noted(summary: ConferenceSummary, calendars: str | None, output: Output) -> Published | None:
        published = load(summary, calendars, output)
        if published is not None:
            note(published)
        return published

    write_conferences(
        store.conferences(), noted, site, Site.of("https://cal.example.org"), None, now=NOW, base_url=None, jobs=jobs
    )


def test_a_build_writes_every_feed_and_keeps_none_rendered(store: Store, tmp_path: Path) -> None:
    made: list[Published] = []

    build(store, tmp_path / "site", 1, made.append)

    (published,) = made
    written = {
        feed.path
        for feed in published.feeds
        if (tmp_path / "site" / "c" / published.conference.slug / feed.path).is_file()
    }
    assert written == {feed.path for feed in published.feeds}
    assert [feed.path for feed in published.feeds if feed.rendered] == []


def test_a_snapshot_the_build_is_done_with_is_freed_without_the_collector(store: Store, tmp_path: Path) -> None:
    # The collector's full passes are rare while a build allocates: a snapshot left in a
    # reference cycle stayed for many conferences' time.
    made: list[weakref.ref[Published]] = []

    gc.disable()
    try:
        build(store, tmp_path / "site", 2, lambda published: made.append(weakref.ref(published)))
        alive = [ref() is not None for ref in made]
    finally:
        gc.enable()

    assert alive == [False]


def test_a_conference_written_leaves_none_of_its_sessions_in_reference_cycles(store: Store, tmp_path: Path) -> None:
    # Rendering leaves cycles (Jinja's macros refer to the context they were made in, which
    # holds a day's cards and their sessions), and a build's collector passes are rare: without
    # a collection once each conference is written, a build of many conferences held every
    # one's sessions, and its process grew past the size it forks workers below.
    second = demo_schedule()
    store.ingest(dataclasses.replace(second, conference=dataclasses.replace(second.conference, slug="second")), now=NOW)
    sessions: dict[str, list[weakref.ref[Session]]] = {}

    def note(published: Published) -> None:
        sessions[published.conference.slug] = [weakref.ref(session) for session in published.schedule.sessions]

    gc.disable()
    try:
        build(store, tmp_path / "site", 1, note)
        first, *_ = store.conferences()
        alive = sum(ref() is not None for ref in sessions[first.slug])
    finally:
        gc.enable()

    assert (len(sessions), len(sessions[first.slug]) > 0, alive) == (2, True, 0)


def test_only_the_conferences_before_the_last_have_their_cycles_walked(store: Store, tmp_path: Path) -> None:
    # A walk of the young generation after the last conference frees nothing the build still
    # needs room for, and in a large conference it is every object the rendering kept.
    second = demo_schedule()
    store.ingest(dataclasses.replace(second, conference=dataclasses.replace(second.conference, slug="second")), now=NOW)
    walked: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            walked.append(info["generation"])

    gc.disable()
    gc.callbacks.append(count)
    try:
        build(store, tmp_path / "site", 1, lambda published: None)
    finally:
        gc.callbacks.remove(count)
        gc.enable()

    assert walked == [1]


def test_a_build_leaves_no_large_feeds_body_for_a_next_snapshot(tmp_path: Path) -> None:
    # A large feed served keeps its body's parts for the feed that replaces it; a build's
    # snapshot has no next one, and holding every large feed's body took a 50,000-session
    # build over its memory bound.
    made: list[Published] = []
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(repeated_weekly(demo_schedule(), BIG), now=NOW - timedelta(days=1))
        build(store, tmp_path / "site", 1, made.append)
    (published,) = made
    first, *rest = published.schedule.sessions
    retitled = dataclasses.replace(first, title=first.title + " (retitled)")
    schedule = dataclasses.replace(published.schedule, sessions=(retitled, *rest))

    after = Published(schedule, now=NOW, base_url=published.base_url, previous=published, lazy=True, written=[retitled])

    large = [feed for feed in after.feeds if isinstance(feed.members, Chunked)]
    assert [feed.spec.kind.value for feed in large][:1] == ["all"]
    assert [feed.handover.held() if feed.handover else None for feed in large] == [0] * len(large)


def test_a_build_keeps_no_page_it_wrote_in_its_snapshot(store: Store, tmp_path: Path) -> None:
    # The pages listing a whole kind are tens of megabytes each in a large conference, and a
    # build writes each once.
    made: list[Published] = []
    build(store, tmp_path / "site", 1, made.append)
    (published,) = made
    asked: list[str] = []

    def page() -> Representation:
        asked.append("page")
        return Representation(b"page", "text/html")

    published.memo("a page", page)
    published.memo("a page", page)

    assert asked == ["page", "page"]
