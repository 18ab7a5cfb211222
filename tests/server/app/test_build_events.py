"""A static build keeps its VEVENTs (build_events.py): a rebuild renders only the changed sessions'
events, and its feeds are byte for byte what a fresh rendering writes."""

from __future__ import annotations

import os
import string
import tempfile
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from feeds.model import Schedule, Session
from server.links import Site
from server.site.build_bodies import Span
from server.site.build_events import Events, merged
from server.site.build_keys import digest
from server.site.build_output import Output
from server.site.site_build import conference_key, site_parts
from server.snapshot.published import Published
from server.web.demo import demo_schedule
from tests.helpers.build_inspection import span_bytes
from tests.helpers.demo_changes import shifted

BASE = "https://cal.example.org"
NOW = datetime(2026, 4, 1, tzinfo=UTC)


def build(root: Path, schedule: Schedule) -> Published:
    """One build of `schedule` into `root`, as `confcal build` writes a conference; its snapshot."""
    published = Published(schedule, now=NOW, base_url=BASE, lazy=True)
    output = Output(root)
    for path, key, make in site_parts(published, Site.of(BASE), output=output):
        output.put(path, key, make)
    output.finish(())
    return published


def test_a_rebuild_renders_only_the_moved_sessions_event(tmp_path: Path) -> None:
    schedule = demo_schedule()
    later = shifted(schedule, {schedule.sessions[3].id}, timedelta(hours=1))
    first = build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", later)

    fresh = Published(later, now=NOW, base_url=BASE)
    assert first.cache.renders == len(schedule.sessions)
    assert rebuilt.cache.renders == 1
    assert (tmp_path / "site" / "feeds" / "all.ics").read_bytes() == fresh.feed("all", "").representation.body  # type: ignore[union-attr]


def test_a_build_that_renders_no_feed_keeps_the_events_for_the_next(tmp_path: Path) -> None:
    schedule = demo_schedule()
    later = shifted(schedule, {schedule.sessions[3].id}, timedelta(hours=1))
    build(tmp_path / "site", schedule)
    unchanged = build(tmp_path / "site", schedule)

    rebuilt = build(tmp_path / "site", later)

    assert unchanged.cache.renders == 0
    assert rebuilt.cache.renders == 1


def test_a_damaged_events_part_is_not_used(tmp_path: Path) -> None:
    schedule = demo_schedule()
    later = shifted(schedule, {schedule.sessions[3].id}, timedelta(hours=1))
    build(tmp_path / "site", schedule)
    for part in (tmp_path / ".site.confcal-build.parts").iterdir():
        written = part.stat()
        part.write_bytes(part.read_bytes().replace(b"SUMMARY", b"SUMMARX"))
        # Altered later than the build wrote it (not within the clock's step).
        os.utime(part, ns=(written.st_atime_ns, written.st_mtime_ns + 1_000_000))

    rebuilt = build(tmp_path / "site", later)

    fresh = Published(later, now=NOW, base_url=BASE)
    assert rebuilt.cache.renders == len(schedule.sessions)
    assert (tmp_path / "site" / "feeds" / "all.ics").read_bytes() == fresh.feed("all", "").representation.body  # type: ignore[union-attr]


def test_downloads_made_after_the_feeds_read_their_events_back_from_the_saved_part(tmp_path: Path) -> None:
    # As a build's workers and its end do: the downloads made once the generator is past them.
    schedule = demo_schedule()
    published = Published(schedule, now=NOW, base_url=BASE, lazy=True)
    output = Output(tmp_path / "site")
    later = []
    for path, key, make in site_parts(published, Site.of(BASE), output=output):
        if path.startswith("sessions/") and path.endswith(".ics"):
            later.append((path, key, make))
        else:
            output.put(path, key, make)
    held = len(published.cache)

    for path, key, make in later:
        output.put(path, key, make)
    output.finish(())

    fresh = Published(schedule, now=NOW, base_url=BASE)
    assert (held, len(published.cache), published.cache.renders) == (0, 0, len(schedule.sessions))
    assert {path: (tmp_path / "site" / path).read_bytes() for path, _, _ in later} == {
        f"sessions/{session.id}.ics": fresh.download_body(session) for session in schedule.sessions
    }


def sixty_four() -> Schedule:
    """The demo conference with 64 sessions: one moved is a 64th of its events, two a 32nd."""
    demo = demo_schedule()
    first = demo.sessions[0]
    return Schedule(
        demo.conference,
        tuple(
            Session(
                f"{n:04x}a0b1c2d3e4f5",
                f"Talk {n}",
                first.start + timedelta(minutes=15 * n),
                first.end + timedelta(minutes=15 * n),
            )
            for n in range(64)
        ),
    )


def event_parts(root: Path, published: Published) -> tuple[Path, Path]:
    """The paths of the conference's events: the base, and the events since."""
    base = conference_key(published, Site.of(BASE))
    parts = root.parent / f".{root.name}.confcal-build.parts"
    return parts / digest(base, "events"), parts / digest(base, "events since")


def digests(path: Path) -> list[str]:
    events = Events(str(path) if path.exists() else None)
    found = events.index()[0]
    events.close()
    return found


def test_a_rebuild_after_a_change_writes_the_changed_event_alone_beside_the_base(tmp_path: Path) -> None:
    schedule = sixty_four()
    later = shifted(schedule, {schedule.sessions[5].id}, timedelta(hours=1))
    base, since = event_parts(tmp_path / "site", build(tmp_path / "site", schedule))
    before = base.stat()

    rebuilt = build(tmp_path / "site", later)

    fresh = Published(later, now=NOW, base_url=BASE)
    after = base.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert (len(digests(base)), len(digests(since)), rebuilt.cache.renders) == (64, 1, 1)
    assert (tmp_path / "site" / "feeds" / "all.ics").read_bytes() == fresh.feed("all", "").representation.body  # type: ignore[union-attr]


def test_a_session_moved_again_leaves_its_last_event_since_and_not_the_one_before(tmp_path: Path) -> None:
    schedule = sixty_four()
    moved = schedule.sessions[5].id
    build(tmp_path / "site", schedule)
    once = shifted(schedule, {moved}, timedelta(hours=1))
    base, since = event_parts(tmp_path / "site", build(tmp_path / "site", once))
    first_since = digests(since)
    twice = shifted(once, {moved}, timedelta(hours=1))

    build(tmp_path / "site", twice)

    fresh = Published(twice, now=NOW, base_url=BASE)
    assert len(first_since) == len(digests(since)) == 1
    assert digests(since) != first_since
    assert len(digests(base)) == 64
    assert (tmp_path / "site" / "feeds" / "all.ics").read_bytes() == fresh.feed("all", "").representation.body  # type: ignore[union-attr]


def test_past_a_sixteenth_of_the_base_the_events_since_are_merged_into_a_new_base(tmp_path: Path) -> None:
    schedule = sixty_four()
    build(tmp_path / "site", schedule)
    once = shifted(schedule, {schedule.sessions[5].id}, timedelta(hours=1))
    base, since = event_parts(tmp_path / "site", build(tmp_path / "site", once))
    twice = shifted(once, {once.sessions[9].id}, timedelta(hours=1))

    # Two events since and two of the base's no session has: a sixteenth of the base, then more.
    build(tmp_path / "site", twice)
    in_two = (len(digests(base)), len(digests(since)))
    thrice = shifted(twice, {twice.sessions[12].id}, timedelta(hours=1))
    build(tmp_path / "site", thrice)

    fresh = Published(thrice, now=NOW, base_url=BASE)
    assert in_two == (64, 2)
    assert (len(digests(base)), digests(since)) == (64, [])
    assert (tmp_path / "site" / "feeds" / "all.ics").read_bytes() == fresh.feed("all", "").representation.body  # type: ignore[union-attr]


def test_downloads_made_after_a_rebuilds_feeds_read_their_events_back_from_both_parts(tmp_path: Path) -> None:
    schedule = sixty_four()
    later = shifted(schedule, {schedule.sessions[5].id}, timedelta(hours=1))
    build(tmp_path / "site", schedule)
    published = Published(later, now=NOW, base_url=BASE, lazy=True)
    output = Output(tmp_path / "site")
    every = []
    for path, key, make in site_parts(published, Site.of(BASE), output=output):
        if path.startswith("sessions/") and path.endswith(".ics"):
            every.append((path, make))  # made after the events are saved, whatever their key
        output.put(path, key, make)

    bodies = {path: make() for path, make in every}

    fresh = Published(later, now=NOW, base_url=BASE)
    assert (len(published.cache), published.cache.renders) == (0, 1)
    assert bodies == {f"sessions/{session.id}.ics": fresh.download_body(session) for session in later.sessions}


def part_of(events: dict[str, bytes]) -> bytes:
    """The events' part as build_events writes it, in digest order: the events' bytes, then each
    digest, then each length in ten digits, then their number in ten digits."""
    ordered = sorted(events.items())
    return b"".join(
        (
            *(body for _, body in ordered),
            *(key.encode() for key, _ in ordered),
            *(b"%010d" % len(body) for _, body in ordered),
            b"%010d" % len(ordered),
        )
    )


def joined(pieces: Iterable[bytes | Span]) -> bytes:
    """The bytes of a part's pieces, each span's read from its file."""
    return b"".join(piece if isinstance(piece, bytes) else span_bytes(piece) for piece in pieces)


def test_a_saved_part_is_the_last_with_the_new_events_put_in_and_those_gone_taken_out(tmp_path: Path) -> None:
    digests = {name: name * 32 for name in "abcdef"}
    last = {digests[n]: f"BEGIN:VEVENT {n}\r\n".encode() for n in "acde"}
    (tmp_path / "part").write_bytes(part_of(last))
    known = Events(str(tmp_path / "part"))
    fresh = {digests[n]: f"BEGIN:VEVENT {n} new\r\n".encode() for n in "bf"}
    wanted = {digests[n] for n in "abdef"}
    places: dict[str, tuple[int, int]] = {}

    body = joined(merged(known, wanted, fresh, places))
    known.close()

    expected = {d: e for d, e in (last | fresh).items() if d in wanted}
    assert body == part_of(expected)
    assert {d: body[start:end] for d, (start, end) in places.items()} == expected


def test_a_part_whose_index_does_not_add_up_gives_no_event(tmp_path: Path) -> None:
    part = part_of({"a" * 32: b"BEGIN:VEVENT a\r\n", "b" * 32: b"BEGIN:VEVENT b\r\n"})
    (tmp_path / "part").write_bytes(part[1:])  # one byte of the events gone: every place is off

    known = Events(str(tmp_path / "part"))
    found = ["a" * 32 in known, "b" * 32 in known]
    known.close()

    assert found == [False, False]


@given(
    last=st.dictionaries(st.sampled_from(string.ascii_lowercase), st.binary(min_size=1, max_size=9), max_size=12),
    new=st.dictionaries(st.sampled_from(string.ascii_lowercase), st.binary(min_size=1, max_size=9), max_size=6),
    kept=st.sets(st.sampled_from(string.ascii_lowercase)),
    most=st.integers(min_value=1, max_value=40),
)
@settings(max_examples=150, deadline=None)
def test_a_saved_part_holds_exactly_the_wanted_events_whatever_is_put_in_and_taken_out(
    last: dict[str, bytes], new: dict[str, bytes], kept: set[str], most: int
) -> None:
    known_events = {name * 32: body for name, body in last.items()}
    fresh = {name * 32: body for name, body in new.items() if name not in last}
    wanted = {name * 32 for name in kept if name in last} | set(fresh)
    with tempfile.TemporaryDirectory() as folder:
        part = Path(folder) / "part"
        part.write_bytes(part_of(known_events))
        known = Events(str(part))
        places: dict[str, tuple[int, int]] = {}

        body = joined(merged(known, wanted, fresh, places, most))
        known.close()

    expected = {d: e for d, e in (known_events | fresh).items() if d in wanted}
    assert body == part_of(expected)
    assert {d: body[start:end] for d, (start, end) in places.items()} == expected
