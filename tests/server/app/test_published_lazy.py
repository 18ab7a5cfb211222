"""Lazy snapshots (what the server builds): nothing rendered up front, the same bytes as an eager
snapshot whenever a feed is rendered, unchanged feeds taken over from the snapshot before."""

from __future__ import annotations

import dataclasses
import gc
import weakref
from datetime import UTC, datetime
from pathlib import Path

from feeds.model import Schedule
from server.snapshot.live import Live
from server.snapshot.published import Published
from server.store import Store
from tests.helpers.app_helpers import NOW, paris


def _moved(schedule: Schedule) -> Schedule:
    moved = dataclasses.replace(
        schedule.sessions[1], start=paris(10, 15), end=paris(10, 45), revision=1,
        modified=datetime(2026, 3, 25, tzinfo=UTC),
    )  # fmt: skip
    return dataclasses.replace(schedule, sessions=(schedule.sessions[0], moved, *schedule.sessions[2:]))


def test_lazy_and_eager_snapshots_serve_the_same_bytes_and_etags(demo_schedule: Schedule) -> None:
    eager = Published(demo_schedule, now=NOW)
    lazy = Published(demo_schedule, now=NOW, lazy=True)

    lazy.warm()

    assert [f.rendered for f in lazy.feeds] == [True] * len(lazy.feeds)
    assert [(f.path, f.representation.body, f.representation.etag) for f in lazy.feeds] == [
        (f.path, f.representation.body, f.representation.etag) for f in eager.feeds
    ]


def test_a_lazy_snapshot_takes_over_unchanged_feeds_and_renders_only_the_moved_event(
    small_schedule: Schedule,
) -> None:
    first = Published(small_schedule, now=NOW, lazy=True)
    first.warm()
    renders = first.cache.renders

    second = Published(_moved(small_schedule), now=NOW, previous=first, lazy=True)
    second.warm()

    assert second.cache.renders - renders == 1
    old_core, new_core = first.feed("track", "core"), second.feed("track", "core")
    old_compilers, new_compilers = first.feed("track", "compilers"), second.feed("track", "compilers")
    assert old_core is not None and new_core is not None
    assert old_compilers is not None and new_compilers is not None
    assert new_core is old_core
    assert new_compilers is not old_compilers
    assert new_compilers.representation.etag != old_compilers.representation.etag


def test_feeds_of_another_base_url_are_not_taken_over(small_schedule: Schedule) -> None:
    first = Published(small_schedule, now=NOW, lazy=True)

    second = Published(small_schedule, now=NOW, previous=first, lazy=True, base_url="https://cal.example.org")

    assert [a is b for a, b in zip(first.feeds, second.feeds, strict=True)] == [False] * len(first.feeds)
    second.warm()
    assert b"https://cal.example.org" in second.feeds[0].representation.body


def test_a_taken_over_feed_does_not_keep_the_snapshot_before_alive(small_schedule: Schedule) -> None:
    first = Published(small_schedule, now=NOW, lazy=True)
    second = Published(_moved(small_schedule), now=NOW, previous=first, lazy=True)
    gone = weakref.ref(first)

    del first
    gc.collect()

    assert gone() is None
    assert second.feed("track", "core") is not None


def test_the_server_swaps_a_new_version_in_before_rendering_and_warms_it_after(
    small_schedule: Schedule, tmp_path: Path
) -> None:
    store = Store.open(str(tmp_path / "store.sqlite"))
    store.ingest(small_schedule, now=NOW)
    live = Live(store, clock=lambda: NOW)
    live.refresh()
    live.warm()
    before = live.current()
    store.ingest(_moved(small_schedule), now=NOW)

    live.refresh()
    swapped = live.current()
    rendered_at_swap = [f.rendered for f in swapped.feeds]
    live.warm()

    assert swapped is not before
    assert rendered_at_swap == [f in before.feeds for f in swapped.feeds]
    assert False in rendered_at_swap
    assert [f.rendered for f in swapped.feeds] == [True] * len(swapped.feeds)
    store.close()
