"""A static build joins a large feed from the chunks of the file it wrote last (build_feeds.py):
a rebuild asks for the events of the chunks a change touched, and writes the bytes a fresh
rendering makes."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

from feeds.model import Conference, Schedule, Session
from server.links import Site
from server.site.build_bodies import Body, Joined, Twin
from server.site.build_feeds import LARGE, chunks, cuts
from server.site.build_output import Output
from server.site.site_build import site_parts
from server.snapshot.published import Published
from server.web.demo import demo_schedule
from tests.helpers.demo_changes import repeated_weekly, shifted

BASE = "https://cal.example.org"
NOW = datetime(2026, 4, 1, tzinfo=UTC)
ALL = "feeds/all.ics"


def build(root: Path, schedule: Schedule) -> list[str]:
    """One build of `schedule` into `root`, as `confcal build` writes a conference; the ids of the
    sessions whose events it asked the event cache for while making the whole conference's feed."""
    published = Published(schedule, now=NOW, base_url=BASE, lazy=True)
    output = Output(root)
    asked: list[str] = []
    for path, key, make in site_parts(published, Site.of(BASE), output=output):
        if path == ALL:
            output.put(path, key, partial(counting, published, make, asked))
        else:
            output.put(path, key, make)
    output.finish(())
    return asked


def counting(published: Published, make: Callable[[], Body], asked: list[str]) -> Body:
    cache = published.cache
    kept = cache.fallback

    def counted(conference: Conference, session: Session, base_url: str | None, alarm: int | None) -> bytes | None:
        asked.append(session.id)
        return None if kept is None else kept(conference, session, base_url, alarm)

    cache.fallback = counted
    try:
        body = make()
        return body if isinstance(body, bytes | Joined | Twin) else list(body)  # the pieces made here, while counted
    finally:
        cache.fallback = kept


def fresh_feed(schedule: Schedule) -> bytes:
    feed = Published(schedule, now=NOW, base_url=BASE).feed("all", "")
    assert feed is not None
    return feed.representation.body


def large_schedule() -> Schedule:
    return repeated_weekly(demo_schedule(), LARGE)


def touched_chunks(before: Schedule, after: Schedule, moved: str) -> list[str]:
    """The sessions (ids) of the whole conference's feed after a move that are in a chunk the
    feed before did not hold as it is, or in the moved session's chunk."""
    ids = [[s.id for s in Published(schedule, now=NOW).feed("all", "").sessions] for schedule in (before, after)]  # type: ignore[union-attr]
    cut = cuts(ids[0])
    old = {tuple(ids[0][start:end]) for start, end in chunks(ids[0], cut)}
    new = [tuple(ids[1][start:end]) for start, end in chunks(ids[1], cut)]
    return [i for chunk in new if chunk not in old or moved in chunk for i in chunk]


def test_a_rebuild_after_one_move_asks_for_the_events_of_the_chunks_it_touched_only(tmp_path: Path) -> None:
    schedule = large_schedule()
    moved = schedule.sessions[len(schedule.sessions) // 2].id
    later = shifted(schedule, {moved}, timedelta(days=1))
    build(tmp_path / "site", schedule)

    asked = build(tmp_path / "site", later)

    assert (tmp_path / "site" / ALL).read_bytes() == fresh_feed(later)
    assert asked == touched_chunks(schedule, later, moved)
    assert 0 < len(asked) < len(schedule.sessions)


def test_a_feed_not_made_in_a_build_keeps_its_chunks_for_the_next(tmp_path: Path) -> None:
    schedule = large_schedule()
    moved = schedule.sessions[7].id
    later = shifted(schedule, {moved}, timedelta(hours=1))
    build(tmp_path / "site", schedule)
    build(tmp_path / "site", schedule)

    asked = build(tmp_path / "site", later)

    assert (tmp_path / "site" / ALL).read_bytes() == fresh_feed(later)
    assert asked == touched_chunks(schedule, later, moved)


def test_a_feed_file_changed_since_the_last_build_is_not_joined_from(tmp_path: Path) -> None:
    schedule = large_schedule()
    later = shifted(schedule, {schedule.sessions[7].id}, timedelta(hours=1))
    build(tmp_path / "site", schedule)
    feed = tmp_path / "site" / ALL
    feed.write_bytes(feed.read_bytes().replace(b"SUMMARY:", b"SUMMARY:x"))

    asked = build(tmp_path / "site", later)

    assert feed.read_bytes() == fresh_feed(later)
    assert len(asked) == len(schedule.sessions)


def test_a_feed_file_edited_to_the_same_size_since_the_last_build_is_not_joined_from(tmp_path: Path) -> None:
    schedule = large_schedule()
    later = shifted(schedule, {schedule.sessions[7].id}, timedelta(hours=1))
    build(tmp_path / "site", schedule)
    feed = tmp_path / "site" / ALL
    written = feed.stat()
    feed.write_bytes(feed.read_bytes().replace(b"SUMMARY:", b"SUMMARY;", 1))
    # Edited later than the build wrote it, as by hand (not within the clock's step).
    os.utime(feed, ns=(written.st_atime_ns, written.st_mtime_ns + 1_000_000))

    asked = build(tmp_path / "site", later)

    assert feed.read_bytes() == fresh_feed(later)
    assert len(asked) == len(schedule.sessions)


def test_chunks_end_after_each_session_cut_after() -> None:
    ids = ["a", "b", "c", "d", "e", "f"]

    found = chunks(ids, {"b", "e"})

    assert found == [(0, 2), (2, 5), (5, 6)]


def test_a_session_taken_out_changes_only_the_chunk_it_was_in() -> None:
    ids = ["a", "b", "c", "d", "e", "f", "g"]
    left = ids[:3] + ids[4:]

    found = [left[start:end] for start, end in chunks(left, {"b", "d", "f"})]

    assert found == [["a", "b"], ["c", "e", "f"], ["g"]]


def test_about_one_session_in_256_ends_a_chunk() -> None:
    ids = [f"{n:014x}" for n in range(25600)]

    found = cuts(ids)

    assert 50 < len(found) < 150
