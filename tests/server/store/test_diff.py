from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest
from store_builders import FIRST, at, six_talks, talk

from feeds.model import Level, Speaker, Status
from server.errors import IngestRefused
from server.store.diff import changed_fields, check_not_destructive, plan_ingest


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
