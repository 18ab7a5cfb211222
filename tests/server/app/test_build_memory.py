"""A build holds what it makes only while it writes it: each feed is rendered for its file and
not kept in the snapshot (a large conference's feeds are several times its all.ics)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.links import Site
from server.site.build_conferences import loader, write_conferences
from server.snapshot.published import Published
from server.store import Store
from server.store.report import ConferenceSummary
from server.web.demo import demo_schedule

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(str(tmp_path / "store.sqlite")) as opened:
        opened.ingest(demo_schedule(), now=NOW - timedelta(days=1))
        yield opened


def build(store: Store, site: Path, jobs: int, note: Callable[[Published], object]) -> None:
    """`confcal build` of `store` into `site`, each snapshot it loads passed to `note`."""
    load = loader(store, NOW)

    def noted(summary: ConferenceSummary, calendars: str | None) -> Published | None:
        published = load(summary, calendars)
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
