from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from feeds.model import Level, Room, Speaker, Status, Track
from server.errors import IngestRefused
from server.store.diff import changed_fields, check_not_destructive, plan_ingest
from tests.helpers.store_builders import FIRST, at, six_talks, talk


def test_identical_sessions_have_no_changed_fields() -> None:
    session = talk("Compilers for Everyone", 11, "Grace Hopper")

    assert changed_fields(session, dataclasses.replace(session, id="other")) == ()


def test_same_instant_in_another_zone_is_not_a_change() -> None:
    session = talk("Compilers for Everyone", 11, "Grace Hopper")
    in_utc = dataclasses.replace(session, start=session.start.astimezone(UTC), end=session.end.astimezone(UTC))

    assert changed_fields(session, in_utc) == ()


@pytest.mark.parametrize(
    ("edit", "fields"),
    [
        ({"level": Level("Advanced")}, ("level",)),
        ({"speakers": (Speaker("Grace Hopper", role="Admiral", affiliation="ACME"),)}, ("speakers",)),
        ({"status": Status.CANCELLED, "slides": True}, ("slides", "status")),
        ({"start": at(9), "end": at(9, 25), "description": "New."}, ("start", "end", "description")),
    ],
)
def test_changed_fields_name_what_a_calendar_shows(edit: dict[str, object], fields: tuple[str, ...]) -> None:
    session = talk("Compilers for Everyone", 11, "Grace Hopper")

    assert changed_fields(session, dataclasses.replace(session, **edit)) == fields  # type: ignore[arg-type]


def test_first_plan_adds_everything_at_revision_zero() -> None:
    plan = plan_ingest(six_talks(), (), FIRST)

    assert len(plan.added) == 6
    assert {(s.revision, s.modified) for s in plan.writes} == {(0, FIRST)}


def test_refusal_counts_only_live_sessions() -> None:
    first = plan_ingest(six_talks(), (), FIRST)
    stored = tuple(first.writes)
    later = datetime(2026, 3, 5, tzinfo=UTC)

    plan = plan_ingest(six_talks()[:2], stored, later)

    with pytest.raises(IngestRefused, match="cancel 4 of 6"):
        check_not_destructive(plan, force=False)
    check_not_destructive(plan, force=True)


def test_sessions_without_room_track_or_level_compare_and_gain_them() -> None:
    bare = dataclasses.replace(talk("Compilers for Everyone", 11, "Grace Hopper"), room=None, track=None, level=None)

    assert changed_fields(bare, bare) == ()
    assert changed_fields(bare, dataclasses.replace(bare, room=Room("Junior Stage"))) == ("room",)
    assert changed_fields(bare, dataclasses.replace(bare, track=Track("Compilers"))) == ("track",)
    assert changed_fields(bare, dataclasses.replace(bare, level=Level("Beginner"))) == ("level",)


def test_a_new_session_starts_at_revision_zero_whatever_the_source_said() -> None:
    incoming = [dataclasses.replace(s, revision=3) for s in six_talks()]

    plan = plan_ingest(incoming, (), FIRST)

    assert {s.revision for s in plan.writes} == {0}


def test_an_edit_outside_the_calendar_keeps_the_revision_and_modified_time() -> None:
    stored = tuple(dataclasses.replace(s, revision=2) for s in plan_ingest(six_talks(), (), FIRST).writes)
    first = stored[0]
    bio = (dataclasses.replace(first.speakers[0], bio="Rear admiral."),)
    incoming = [
        dataclasses.replace(s, id="", revision=0, speakers=bio if s.id == first.id else s.speakers) for s in stored
    ]

    plan = plan_ingest(incoming, stored, datetime(2026, 3, 5, tzinfo=UTC))

    (written,) = plan.writes
    assert (written.id, written.revision, written.modified, written.speakers) == (first.id, 2, FIRST, bio)
    assert (plan.unchanged, plan.changed, plan.cancelled) == (6, {}, ())


def test_a_session_the_source_marks_cancelled_is_reported_as_cancelled_not_changed() -> None:
    stored = tuple(plan_ingest(six_talks(), (), FIRST).writes)
    gone = stored[1]
    incoming = [dataclasses.replace(s, status=Status.CANCELLED) if s.id == gone.id else s for s in stored]

    plan = plan_ingest(incoming, stored, datetime(2026, 3, 5, tzinfo=UTC))

    assert (plan.cancelled, plan.changed, plan.restored) == ((gone.id,), {}, ())
