"""A rebuild after a change writes the tree a fresh build of the same store writes into an empty
directory: every file's bytes, and which files exist, for each kind of change a source brings."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import pytest

from feeds import urls
from feeds.model import Room, Schedule, Session, Speaker, Status, Track
from server.cli import main
from server.store import Store
from server.web.demo import demo_schedule

BASE = "https://cal.example.org"
CHANGED = "e3d1dd243c"  # the demo's talk by Rosheen Naeem, her only one
# The ingests run at the demo's time, so a session withdrawn is shown cancelled (its grace period
# runs from then) in the rebuild and the fresh build alike.
NOW = datetime(2026, 4, 1, 12, tzinfo=UTC)


def edited(schedule: Schedule, change: Callable[[Session], Session | None]) -> Schedule:
    """`schedule` with CHANGED replaced by `change(session)`, or dropped when it returns None."""
    sessions = []
    for session in schedule.sessions:
        found = change(session) if session.id == CHANGED else session
        if found is not None:
            sessions.append(found)
    return dataclasses.replace(schedule, sessions=tuple(sessions))


def moved(by: timedelta) -> Callable[[Session], Session]:
    return lambda s: dataclasses.replace(s, start=s.start + by, end=s.end + by)


def added(schedule: Schedule) -> Schedule:
    """`schedule` with one more session, CHANGED's twin an hour later under another title."""
    twin = next(s for s in schedule.sessions if s.id == CHANGED)
    hour = timedelta(hours=1)
    new = dataclasses.replace(
        twin, id="", source_id="added-1", title="An added talk", start=twin.start + hour, end=twin.end + hour
    )
    return dataclasses.replace(schedule, sessions=(*schedule.sessions, new))


CHANGES: dict[str, Callable[[Schedule], Schedule]] = {
    "move within its day": lambda s: edited(s, moved(timedelta(minutes=30))),
    "move to another day": lambda s: edited(s, moved(timedelta(days=1))),
    "retitle": lambda s: edited(s, lambda x: dataclasses.replace(x, title="A new title")),
    "new speaker": lambda s: edited(
        s, lambda x: dataclasses.replace(x, speakers=(*x.speakers, Speaker("Ada Newcomer", affiliation="Elsewhere")))
    ),
    "cancelled": lambda s: edited(s, lambda x: dataclasses.replace(x, status=Status.CANCELLED)),
    "withdrawn": lambda s: edited(s, lambda x: None),
    "new session": added,
    "new room and track": lambda s: edited(
        s, lambda x: dataclasses.replace(x, room=Room("A New Hall"), track=Track("A New Track"))
    ),
    "speaker renamed": lambda s: edited(
        s, lambda x: dataclasses.replace(x, speakers=tuple(Speaker(p.name + " Jr") for p in x.speakers))
    ),
    "conference renamed": lambda s: dataclasses.replace(
        s, conference=dataclasses.replace(s.conference, name="A Renamed Conference")
    ),
    "conference's day changes later": lambda s: dataclasses.replace(
        s, conference=dataclasses.replace(s.conference, day_change=time(4))
    ),
}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def second(demo: Schedule) -> Schedule:
    return dataclasses.replace(
        demo, conference=dataclasses.replace(demo.conference, slug="second-conf", name="Second Conference")
    )


def seed(db: str) -> Schedule:
    """The demo and a second conference in the store; returns the demo as stored."""
    demo = demo_schedule()
    with Store.open(db) as store:
        store.ingest(demo, now=NOW)
        store.ingest(second(demo), now=NOW)
        return demo


@pytest.mark.parametrize("kind", CHANGES)
def test_a_rebuild_after_a_change_writes_the_tree_a_fresh_build_writes(tmp_path: Path, kind: str) -> None:
    db, out, fresh = str(tmp_path / "store.sqlite"), tmp_path / "site", tmp_path / "fresh"
    demo = seed(db)
    main(["build", "--db", db, str(out), "--base-url", BASE])
    before = tree(out)
    with Store.open(db) as store:
        store.ingest(CHANGES[kind](demo), now=NOW + timedelta(minutes=1))

    main(["build", "--db", db, str(out), "--base-url", BASE])

    main(["build", "--db", db, str(fresh), "--base-url", BASE])
    after = tree(out)
    assert after == tree(fresh)
    assert after != before  # the change shows


@pytest.mark.parametrize(
    "kinds",
    [
        ("move to another day", "retitle", "new speaker"),
        ("move within its day", "move to another day"),
        ("move within its day", "withdrawn"),
        ("new session", "speaker renamed", "cancelled"),
        ("conference renamed", "move within its day"),
    ],
    ids=" then ".join,
)
def test_a_rebuild_after_changes_one_after_another_writes_the_tree_a_fresh_build_writes(
    tmp_path: Path, kinds: tuple[str, ...]
) -> None:
    db, out, fresh = str(tmp_path / "store.sqlite"), tmp_path / "site", tmp_path / "fresh"
    demo = seed(db)
    main(["build", "--db", db, str(out), "--base-url", BASE])
    for step, kind in enumerate(kinds):
        demo = CHANGES[kind](demo)
        with Store.open(db) as store:
            store.ingest(demo, now=NOW + timedelta(minutes=1 + step))
        main(["build", "--db", db, str(out), "--base-url", BASE])

    main(["build", "--db", db, str(fresh), "--base-url", BASE])
    assert tree(out) == tree(fresh)


def test_a_rebuild_with_another_default_conference_writes_the_tree_a_fresh_build_writes(tmp_path: Path) -> None:
    db, out, fresh = str(tmp_path / "store.sqlite"), tmp_path / "site", tmp_path / "fresh"
    seed(db)
    main(["build", "--db", db, str(out), "--base-url", BASE])
    before = tree(out)

    main(["build", "--db", db, str(out), "--base-url", BASE, "--default", "second-conf"])

    main(["build", "--db", db, str(fresh), "--base-url", BASE, "--default", "second-conf"])
    after = tree(out)
    assert after == tree(fresh)
    assert after != before


def test_a_rebuild_from_a_store_made_anew_writes_the_tree_a_fresh_build_writes(tmp_path: Path) -> None:
    db, out, fresh = tmp_path / "store.sqlite", tmp_path / "site", tmp_path / "fresh"
    demo = seed(str(db))
    main(["build", "--db", str(db), str(out), "--base-url", BASE])
    db.unlink()
    with Store.open(str(db)) as store:
        # The same conferences and versions' numbers, written later, one with other rows.
        store.ingest(CHANGES["retitle"](demo), now=NOW + timedelta(minutes=1))
        store.ingest(second(demo), now=NOW + timedelta(minutes=1))

    main(["build", "--db", str(db), str(out), "--base-url", BASE])

    main(["build", "--db", str(db), str(fresh), "--base-url", BASE])
    assert tree(out) == tree(fresh)


def test_every_file_under_a_conference_sessions_directory_is_a_session_own(tmp_path: Path) -> None:
    # A rebuild takes the directory whole but for the sessions written since (Output.keep_range):
    # a file of anything else there would go stale.
    db = str(tmp_path / "store.sqlite")
    demo = seed(db)
    out = tmp_path / "site"
    main(["build", "--db", db, str(out), "--base-url", BASE])
    own = {
        path for s in demo.sessions for path in (urls.session_download(s.id), urls.session_page(s.id) + urls.PAGE_FILE)
    }

    found = {
        p.relative_to(conference).as_posix()
        for conference in (out / "c").iterdir()
        for p in (conference / urls.SESSIONS).rglob("*")
        if p.is_file()
    }

    assert found - own == set()
    assert len(found) > len(demo.sessions)


def test_every_file_under_a_conference_speakers_directory_is_a_speaker_page_or_their_directory(
    tmp_path: Path,
) -> None:
    # A rebuild takes the directory whole but for the speakers a change touched: a file of
    # anything else there would go stale.
    db = str(tmp_path / "store.sqlite")
    demo = seed(db)
    out = tmp_path / "site"
    main(["build", "--db", db, str(out), "--base-url", BASE])
    pages = {urls.speaker_page(p.slug) + urls.PAGE_FILE for s in demo.sessions for p in s.speakers}

    found = {
        p.relative_to(conference).as_posix()
        for conference in (out / "c").iterdir()
        for p in (conference / urls.SPEAKERS).rglob("*")
        if p.is_file()
    }

    assert found - pages == {urls.SPEAKERS + urls.PAGE_FILE}
    assert found > pages
