"""The pure planner, the resource names, content comparison and backoff (no I/O)."""

from __future__ import annotations

import pytest

from server.caldav.content import same_event, uids
from server.caldav.plan import (
    Claim,
    Conflict,
    Create,
    Delete,
    DesiredEvent,
    Forget,
    Keep,
    Update,
    plan,
    uid_of,
)
from server.caldav.retry import RetryPolicy
from server.caldav.rows import StateRow, digest
from server.caldav.storage import name_for
from tests.helpers.loaded import loaded
from tests.helpers.push_helpers import edited, event_ics, make_schedule

START = make_schedule(1).sessions[0].start
A = DesiredEvent(uid="a@x", revision=0, ics=event_ics("a@x", "A", START))
A2 = DesiredEvent(uid="a@x", revision=1, ics=event_ics("a@x", "A moved", START))


def row(event: DesiredEvent, etag: str = '"1"') -> StateRow:
    return StateRow(
        uid=event.uid,
        name=name_for(event.uid),
        etag=etag,
        revision=event.revision,
        digest=event.digest,
    )


NAME = name_for("a@x")


def test_new_pick_is_created() -> None:
    assert plan([A], {}, {}) == [Create(event=A, name=NAME)]


def test_new_pick_whose_name_is_taken_is_claimed_not_overwritten() -> None:
    assert plan([A], {}, {NAME: '"9"'}) == [Claim(event=A, name=NAME, etag='"9"')]


def test_unchanged_is_kept() -> None:
    assert plan([A], {"a@x": row(A)}, {NAME: '"1"'}) == [Keep(uid="a@x", name=NAME)]


def test_changed_content_is_updated_with_the_stored_etag() -> None:
    assert plan([A2], {"a@x": row(A)}, {NAME: '"1"'}) == [Update(event=A2, name=NAME, etag='"1"')]


def test_unpicked_is_deleted_with_the_stored_etag() -> None:
    assert plan([], {"a@x": row(A)}, {NAME: '"1"'}) == [Delete(uid="a@x", name=NAME, etag='"1"')]


def test_owner_edit_without_our_change_is_kept() -> None:
    assert plan([A], {"a@x": row(A)}, {NAME: '"2"'}) == [Keep(uid="a@x", name=NAME, owner_changed=True)]


def test_owner_edit_with_our_change_is_a_conflict() -> None:
    assert plan([A2], {"a@x": row(A)}, {NAME: '"2"'}) == [Conflict(uid="a@x", name=NAME, event=A2, etag='"2"')]


def test_owner_edit_of_an_unpicked_event_is_a_conflict() -> None:
    assert plan([], {"a@x": row(A)}, {NAME: '"2"'}) == [Conflict(uid="a@x", name=NAME, event=None, etag='"2"')]


def test_unpicked_and_already_gone_is_forgotten() -> None:
    assert plan([], {"a@x": row(A)}, {}) == [Forget(uid="a@x", name=NAME)]


def test_events_without_a_state_row_are_never_planned() -> None:
    assert plan([], {}, {"lunch.ics": '"1"', NAME: '"1"'}) == []


def test_deletes_come_first_then_uid_order() -> None:
    b = DesiredEvent(uid="b@x", revision=0, ics=event_ics("b@x", "B", START))
    actions = plan([b], {"a@x": row(A)}, {NAME: '"1"'})
    assert [a.verb for a in actions] == ["delete", "create"]


def desired(uid: str, revision: int = 0) -> DesiredEvent:
    return DesiredEvent(uid=uid, revision=revision, ics=event_ics(uid, f"{uid} r{revision}", START))


def test_the_plan_is_deletes_forgets_conflicts_updates_claims_creates_then_keeps() -> None:
    # The UIDs run against that order, so two kinds that swapped or tied would come out reordered.
    kept, created, claimed, updated, conflicting, forgotten, deleted = (desired(f"{letter}@x") for letter in "abcdefg")
    rows = {e.uid: row(e) for e in (kept, updated, conflicting, forgotten, deleted)}
    remote = {name_for(e.uid): '"1"' for e in (kept, claimed, updated, deleted)} | {name_for(conflicting.uid): '"2"'}
    wanted = [kept, created, claimed, desired("d@x", 1), desired("e@x", 1)]

    actions = plan(wanted, rows, remote)

    assert [(type(a).__name__, uid_of(a)) for a in actions] == [
        ("Delete", "g@x"),
        ("Forget", "f@x"),
        ("Conflict", "e@x"),
        ("Update", "d@x"),
        ("Claim", "c@x"),
        ("Create", "b@x"),
        ("Keep", "a@x"),
    ]


def test_a_uid_desired_twice_is_a_bug() -> None:
    with pytest.raises(ValueError, match=r"^UID 'a@x' is desired twice$"):
        plan([A, A2], {}, {})


def test_names_are_deterministic_safe_and_distinct() -> None:
    assert name_for("s1@pytorch-conference-europe-2026.confcal") == "s1_40pytorch-conference-europe-2026.confcal.ics"
    assert name_for("a/b é") == "a_2Fb_20_C3_A9.ics"
    assert name_for("a@b") != name_for("a_40b")


def test_same_event_ignores_serialization_and_dtstamp_but_not_content() -> None:
    ics = A.ics
    reordered = ics.replace(b"DTSTAMP:20260302T000000Z\r\n", b"").replace(
        b"END:VEVENT", b"DTSTAMP:20991231T000000Z\r\nEND:VEVENT"
    )
    assert same_event(ics, reordered) is True
    assert same_event(ics, edited(ics, "Other")) is False
    assert same_event(ics, b"not a calendar") is False
    assert uids(ics) == {"a@x"}


def test_backoff_doubles_is_capped_and_honours_retry_after() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0)
    assert 0.5 <= policy.delay(0, None) <= 1.0
    assert 2.0 <= policy.delay(2, None) <= 4.0
    assert 2.5 <= policy.delay(10, None) <= 5.0
    assert policy.delay(0, 3.0) == 3.0
    assert policy.delay(0, 600.0) == 5.0


def test_digest_is_of_the_bytes() -> None:
    assert row(A).digest == digest(A.ics) != digest(A2.ics)


def test_the_planner_imports_no_database_module() -> None:
    """The planner is pure: importing it must not pull in SQLAlchemy or the store."""
    found = loaded(
        "server.caldav.plan", packages=("sqlalchemy",), modules=("server.caldav.state",), prefixes=("server.store",)
    )

    assert found == []
