"""schedule.xml, schedule.json and `api/sessions` in a static build (build_exports.py): joined
from a kept part per day, keyed without the day's layout. After any change a rebuild writes the
bytes a fresh rendering does, including changes that cross days: a day's part whose sessions did
not change is made again when the day's index or one of its events' numeric ids moved."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feeds.exports import EXPORTERS
from feeds.exports.frab_layout import layout
from feeds.model import Room, Schedule, Session
from server.links import Site
from server.site.build_output import Output
from server.site.site_build import site_parts
from server.snapshot.api import sessions_representation
from server.snapshot.published import Published
from server.web.demo import demo_schedule

BASE = "https://cal.example.org"
NOW = datetime(2026, 4, 1, tzinfo=UTC)
PATHS = {"schedule.xml": "frab-xml", "schedule.json": "c3voc-json"}

# Two session ids whose hashes give the same numeric id: the first in id order keeps it, the
# other takes the next number (frab_layout._numbers), whichever day each is on.
FIRST_OF_PAIR, SECOND_OF_PAIR = "5ebc067ccc3895af", "65aaba9dab8fc5da"


def session(session_id: str, day: int, hour: int, room: str | None = "Hall") -> Session:
    """A one-hour session at `hour`:00 Paris time (UTC+2 in April) on 7 + `day` April 2026."""
    start = datetime(2026, 4, 7 + day, hour - 2, tzinfo=UTC)
    return Session(
        session_id, f"Talk {session_id}", start, start + timedelta(hours=1), room=Room(room) if room else None
    )


def schedule(*sessions: Session) -> Schedule:
    return Schedule(demo_schedule().conference, sessions)


def build(root: Path, built: Schedule) -> dict[str, bytes]:
    """One build of `built` into `root`, as `confcal build` writes a conference; the export files."""
    published = Published(built, now=NOW, base_url=BASE, lazy=True)
    output = Output(root)
    for path, key, make in site_parts(published, Site.of(BASE), output=output):
        output.put(path, key, make)
    output.finish(())
    return {path: (root / path).read_bytes() for path in [*PATHS, "api/sessions"]}


def fresh(built: Schedule) -> dict[str, bytes]:
    """The export files as the server renders them, whole."""
    published = Published(built, now=NOW, base_url=BASE)
    site = Site.of(BASE)
    files = {path: EXPORTERS[name].render(built, now=NOW, base_url=BASE) for path, name in PATHS.items()}
    return files | {"api/sessions": sessions_representation(published, site).body}


def numbers(built: Schedule) -> dict[str, int]:
    return {e.session.id: e.number for day in layout(built).days for room in day.rooms for e in room.events}


def test_a_rebuild_after_a_session_moved_is_a_fresh_build(tmp_path: Path) -> None:
    before = schedule(session("a1", 0, 9), session("b1", 0, 10), session("c1", 1, 9), session("d1", 2, 9))
    after = schedule(session("a1", 0, 9), session("b1", 0, 14, "Side"), session("c1", 1, 9), session("d1", 2, 9))
    build(tmp_path, before)

    rebuilt = build(tmp_path, after)

    assert rebuilt == fresh(after)
    assert rebuilt != fresh(before)


def test_a_session_added_on_another_day_that_moves_an_events_numeric_id_remakes_its_day(tmp_path: Path) -> None:
    # The second of the pair alone on the last day; its twin is added on the first.
    before = schedule(session("a1", 0, 9), session(SECOND_OF_PAIR, 1, 9))
    after = schedule(session("a1", 0, 9), session(FIRST_OF_PAIR, 0, 11), session(SECOND_OF_PAIR, 1, 9))
    build(tmp_path, before)

    rebuilt = build(tmp_path, after)

    assert numbers(after)[SECOND_OF_PAIR] == numbers(before)[SECOND_OF_PAIR] + 1  # the id moved
    assert rebuilt == fresh(after)


def test_a_day_added_before_the_others_remakes_the_days_it_moves(tmp_path: Path) -> None:
    # Days 2 and 3 become the programme's second and third days: their index and (in
    # schedule.json) the comma before them change, not their sessions.
    before = schedule(session("c1", 2, 9), session("d1", 3, 9))
    after = schedule(session("a1", 0, 9), session("c1", 2, 9), session("d1", 3, 9))
    build(tmp_path, before)

    rebuilt = build(tmp_path, after)

    assert [day.index for day in layout(before).days] == [1, 2]
    assert rebuilt == fresh(after)


def test_a_session_on_another_day_becoming_the_first_remakes_the_first_day_of_the_sessions_api(
    tmp_path: Path,
) -> None:
    before = schedule(session("c1", 1, 9), session("d1", 2, 9))
    after = schedule(session("a1", 0, 9), session("c1", 1, 9), session("d1", 2, 9))
    build(tmp_path, before)

    rebuilt = build(tmp_path, after)

    assert rebuilt["api/sessions"] == fresh(after)["api/sessions"]


@pytest.mark.parametrize("change", ["venue", "name", "timezone"])
def test_a_change_of_the_conference_remakes_every_day(tmp_path: Path, change: str) -> None:
    # An event without a room is in the venue's (else the conference's name); the zone decides
    # the programme days and their start and end.
    roomless = schedule(session("a1", 0, 9, None), session("b1", 1, 9, None))
    conference = dataclasses.replace(roomless.conference, venue=None)
    before = dataclasses.replace(roomless, conference=conference)
    changed = {
        "venue": dataclasses.replace(conference, venue="Other venue"),
        "name": dataclasses.replace(conference, name="Other name"),
        "timezone": dataclasses.replace(conference, timezone="Europe/Lisbon"),
    }[change]
    after = dataclasses.replace(before, conference=changed)
    build(tmp_path, before)

    rebuilt = build(tmp_path, after)

    assert rebuilt == fresh(after)
    assert rebuilt != fresh(before)


def test_a_rebuild_lays_out_only_the_day_whose_sessions_changed(tmp_path: Path) -> None:
    before = schedule(session("a1", 0, 9), session("b1", 1, 9), session("c1", 2, 9))
    after = schedule(session("a1", 0, 9), session("b1", 1, 14), session("c1", 2, 9))
    build(tmp_path, before)

    build(tmp_path, after)

    # The layout both exports shared (frab_layout's memo): a day's rooms are laid out when read.
    assert ["rooms" in vars(day) for day in layout(after).days] == [False, True, False]


def test_a_rebuild_after_a_session_was_retitled_shows_the_new_title(tmp_path: Path) -> None:
    before = schedule(session("a1", 0, 9), session("b1", 0, 10), session("c1", 1, 9))
    after = schedule(
        session("a1", 0, 9), dataclasses.replace(session("b1", 0, 10), title="Retitled"), session("c1", 1, 9)
    )
    build(tmp_path, before)

    rebuilt = build(tmp_path, after)

    assert rebuilt == fresh(after)
    assert [b"Retitled" in body for body in rebuilt.values()] == [True, True, True]
