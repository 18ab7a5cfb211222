"""A build carries over the files of a conference nothing it is made from changed, and remakes
the conference when anything did: its sessions, a base URL, the default, another conference's
name, or the clock passing the end of a cancellation's grace period."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from feeds.catalogue import CANCELLED_GRACE
from feeds.model import Conference, Schedule, Speaker
from server.site.build_conferences import Built
from server.store import Store
from server.web.demo import demo_schedule
from tests.helpers.build_inspection import build_store, directories, file_bytes, file_states
from tests.helpers.demo_changes import lone_speakers_session

BASE = "https://cal.example.org"
DEMO = "pytorch-conference-europe-2026"
SECOND = Conference("Second Conf", "Europe/Berlin", date(2026, 6, 1), date(2026, 6, 2))
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def build(
    store: Store,
    out: Path,
    *,
    now: datetime = NOW,
    base_url: str = BASE,
    default: str = DEMO,
    read: list[str] | None = None,
) -> Built:
    """`build_store` with this module's clock, base URL and default conference."""
    return build_store(store, out, now=now, base_url=base_url, default=default, read=read)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """The demo and a second conference, ingested the day before NOW."""
    with Store.open(str(tmp_path / "store.sqlite")) as opened:
        opened.ingest(demo_schedule(), now=NOW - timedelta(days=1))
        opened.ingest(dataclasses.replace(demo_schedule(), conference=SECOND), now=NOW - timedelta(days=1))
        yield opened


def without_first_session(schedule: Schedule) -> Schedule:
    return dataclasses.replace(schedule, sessions=schedule.sessions[1:])


def test_a_conference_without_a_change_is_carried_over_without_reading_it(store: Store, tmp_path: Path) -> None:
    build(store, tmp_path / "site")
    store.ingest(without_first_session(demo_schedule()), now=NOW)
    read: list[str] = []

    built = build(store, tmp_path / "site", read=read)

    assert read == [DEMO]
    assert built.carried == ["second-conf"]
    assert (built.conferences, built.sessions) == (2, 56)
    build(store, tmp_path / "fresh")
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


def test_a_build_without_a_change_reads_no_schedule_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    first = build(store, tmp_path / "site")
    before = file_bytes(tmp_path / "site")
    read: list[str] = []

    again = build(store, tmp_path / "site", now=NOW + timedelta(days=3), read=read)

    assert (read, again.carried, again.changed) == ([], [DEMO, "second-conf"], [])
    assert (again.feeds, again.sessions) == (first.feeds, first.sessions)
    assert file_bytes(tmp_path / "site") == before


@pytest.mark.parametrize(
    ("base_url", "default"),
    [("https://other.example.org", DEMO), (BASE, "second-conf")],
    ids=["another base URL", "another default, so another root copy"],
)
def test_another_build_option_remakes_every_conference(
    store: Store, tmp_path: Path, base_url: str, default: str
) -> None:
    build(store, tmp_path / "site")

    built = build(store, tmp_path / "site", base_url=base_url, default=default)

    assert built.carried == []
    build(store, tmp_path / "fresh", base_url=base_url, default=default)
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


def test_a_renamed_conference_remakes_the_pages_linking_to_it(store: Store, tmp_path: Path) -> None:
    build(store, tmp_path / "site")
    renamed = dataclasses.replace(SECOND, name="Second Conf, Renamed")
    store.ingest(dataclasses.replace(demo_schedule(), conference=renamed), now=NOW)

    built = build(store, tmp_path / "site")

    assert built.carried == []  # the demo's pages name the other conference
    build(store, tmp_path / "fresh")
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


def test_a_conference_added_remakes_every_conference_linking_to_it_and_a_change_in_one_carries_the_others(
    store: Store, tmp_path: Path
) -> None:
    build(store, tmp_path / "site")
    third = dataclasses.replace(SECOND, name="Third Conf", slug="third-conf")
    store.ingest(dataclasses.replace(demo_schedule(), conference=third), now=NOW)

    added = build(store, tmp_path / "site")
    store.ingest(without_first_session(dataclasses.replace(demo_schedule(), conference=third)), now=NOW)
    changed = build(store, tmp_path / "site")

    assert (added.carried, changed.carried) == ([], [DEMO, "second-conf"])
    build(store, tmp_path / "fresh")
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


def test_the_end_of_a_cancellations_grace_period_remakes_its_conference(store: Store, tmp_path: Path) -> None:
    store.ingest(without_first_session(demo_schedule()), now=NOW)  # cancelled at NOW
    build(store, tmp_path / "site", now=NOW + timedelta(days=1))
    within = build(store, tmp_path / "site", now=NOW + CANCELLED_GRACE)
    read: list[str] = []

    after = build(store, tmp_path / "site", now=NOW + CANCELLED_GRACE + timedelta(seconds=1), read=read)

    assert within.carried == [DEMO, "second-conf"]
    assert (read, after.carried) == ([DEMO], ["second-conf"])
    assert after.changed != []  # the cancelled session left the feeds
    build(store, tmp_path / "fresh", now=NOW + CANCELLED_GRACE + timedelta(seconds=1))
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


def test_the_end_of_a_grace_period_a_rebuild_patched_in_remakes_its_conference(store: Store, tmp_path: Path) -> None:
    build(store, tmp_path / "site")
    store.ingest(without_first_session(demo_schedule()), now=NOW)  # cancelled at NOW
    build(store, tmp_path / "site", now=NOW + timedelta(days=1))  # the last build's feeds, patched
    within = build(store, tmp_path / "site", now=NOW + CANCELLED_GRACE)

    after = build(store, tmp_path / "site", now=NOW + CANCELLED_GRACE + timedelta(seconds=1))

    assert (within.carried, after.carried) == ([DEMO, "second-conf"], ["second-conf"])
    build(store, tmp_path / "fresh", now=NOW + CANCELLED_GRACE + timedelta(seconds=1))
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


def test_a_clock_set_back_remakes_every_conference(store: Store, tmp_path: Path) -> None:
    build(store, tmp_path / "site")

    built = build(store, tmp_path / "site", now=NOW - timedelta(hours=1))

    assert built.carried == []


def test_a_store_made_anew_remakes_its_conferences_though_it_counts_versions_alike(
    store: Store, tmp_path: Path
) -> None:
    build(store, tmp_path / "site")
    with Store.open(str(tmp_path / "anew.sqlite")) as anew:
        anew.ingest(without_first_session(demo_schedule()), now=NOW)
        anew.ingest(dataclasses.replace(demo_schedule(), conference=SECOND), now=NOW)
        assert [c.version for c in anew.conferences()] == [c.version for c in store.conferences()]

        built = build(anew, tmp_path / "site")

        assert built.carried == []
        build(anew, tmp_path / "fresh")
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


@pytest.mark.parametrize("record", ["kept", "lost"])
def test_the_files_of_a_session_gone_are_removed_with_their_directories(
    store: Store, tmp_path: Path, record: str
) -> None:
    # Lost: a site checked out of a repository, without the record kept beside it. The build
    # then owns the files of the kinds it makes in its directories (feeds, pages, QR codes).
    gone = demo_schedule().sessions[0]
    store.ingest(without_first_session(demo_schedule()), now=NOW)
    build(store, tmp_path / "site")
    if record == "lost":
        (tmp_path / ".site.confcal-build.sqlite").unlink()
    later = NOW + CANCELLED_GRACE + timedelta(seconds=1)  # the cancelled session leaves the site

    build(store, tmp_path / "site", now=later)

    build(store, tmp_path / "fresh", now=later)
    assert not (tmp_path / "site" / "sessions" / gone.id).exists()
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")
    assert directories(tmp_path / "site") == directories(tmp_path / "fresh")


def bytes_and_inodes(out: Path) -> dict[str, tuple[bytes, int]]:
    return {path: (body, inode) for path, (body, inode, _) in file_states(out).items()}


@pytest.mark.parametrize("record", ["kept", "lost"])
def test_another_default_writes_only_the_files_whose_bytes_change(store: Store, tmp_path: Path, record: str) -> None:
    # The root's copy moves to the other conference; its static files, the same bytes in both,
    # stay as they are (a host's validators for them with them).
    build(store, tmp_path / "site")
    if record == "lost":
        (tmp_path / ".site.confcal-build.sqlite").unlink()
    before = bytes_and_inodes(tmp_path / "site")

    built = build(store, tmp_path / "site", default="second-conf")

    after = bytes_and_inodes(tmp_path / "site")
    changed = sorted(path for path, (body, _) in after.items() if path not in before or before[path][0] != body)
    assert sorted(built.changed) == changed
    assert {p: after[p] for p in after if p not in changed} == {p: before[p] for p in after if p not in changed}
    assert after["static/style.css"] == before["static/style.css"]
    build(store, tmp_path / "fresh", default="second-conf")
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


def test_a_speaker_given_a_session_and_then_not_has_their_feed_and_page_made_again(
    store: Store, tmp_path: Path
) -> None:
    # One session written at a time is too few to keep the schedule again: each rebuild patches
    # the feeds from the schedule the first build kept, in which the session never had them.
    schedule = demo_schedule()
    first, other = schedule.sessions[0], schedule.sessions[1]
    guest = other.speakers[0]
    assert guest not in first.speakers
    given = dataclasses.replace(first, speakers=(*first.speakers, guest))
    build(store, tmp_path / "site")
    store.ingest(dataclasses.replace(schedule, sessions=(given, *schedule.sessions[1:])), now=NOW)
    build(store, tmp_path / "site", now=NOW + timedelta(minutes=1))
    store.ingest(schedule, now=NOW + timedelta(minutes=2))

    build(store, tmp_path / "site", now=NOW + timedelta(minutes=3))

    build(store, tmp_path / "fresh", now=NOW + timedelta(minutes=3))
    speaker = f"feeds/speaker/{guest.slug}.ics"
    assert (tmp_path / "site" / speaker).read_bytes() == (tmp_path / "fresh" / speaker).read_bytes()
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")


@pytest.mark.parametrize("record", ["kept", "lost"])
def test_a_speaker_whose_feed_ends_has_their_files_removed_and_no_other_feed_keyed(
    store: Store, tmp_path: Path, record: str
) -> None:
    # The speaker's only session goes to another: their feed ends. The rebuild keys the feeds
    # the patch touched, finds the ended one's files by its path, and takes every other feed
    # with its directory (lost: the record by area is gone, so every feed is keyed).
    schedule = demo_schedule()
    session = schedule.sessions[lone_speakers_session(schedule)]
    (leaving,) = session.speakers
    swapped = dataclasses.replace(session, speakers=(Speaker("Ada Example"),))
    build(store, tmp_path / "site")
    if record == "lost":
        (tmp_path / ".site.confcal-build.sqlite").unlink()
    before = file_bytes(tmp_path / "site")
    store.ingest(
        dataclasses.replace(schedule, sessions=tuple(swapped if s is session else s for s in schedule.sessions)),
        now=NOW,
    )

    built = build(store, tmp_path / "site", now=NOW + timedelta(minutes=1))

    after = file_bytes(tmp_path / "site")
    feeds = f"c/{DEMO}/feeds/"
    keyed = sorted(path for path in built.keyed if path.startswith(feeds))
    changed = sorted(path for path, body in after.items() if path.startswith(feeds) and before.get(path) != body)
    assert f"{feeds}speaker/{leaving.slug}.ics" not in after
    if record == "kept":
        assert keyed == changed
    else:
        assert len(keyed) == len([path for path in after if path.startswith(feeds)])
    build(store, tmp_path / "fresh", now=NOW + timedelta(minutes=1))
    assert file_bytes(tmp_path / "site") == file_bytes(tmp_path / "fresh")
    assert directories(tmp_path / "site") == directories(tmp_path / "fresh")
