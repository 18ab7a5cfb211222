from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from feeds.model import Conference, Room, Schedule, Session, Speaker, Status
from server.errors import IngestRefused, StoreError
from server.store import Store, removal
from tests.helpers.store_builders import (
    CONFERENCE,
    FIRST,
    SECOND,
    THIRD,
    at,
    schedule,
    six_talks,
    talk,
)


def by_title(snapshot: Schedule | None) -> dict[str, Session]:
    assert snapshot is not None
    return {s.title: s for s in snapshot.sessions}


def test_empty_store_has_version_zero_and_no_schedule(store: Store) -> None:
    assert store.version() == 0
    assert store.live() is None


def test_first_ingest_adds_every_session_at_revision_zero(store: Store) -> None:
    report = store.ingest(schedule(*six_talks()), now=FIRST)

    live = store.live()
    assert live is not None
    assert report.version == 1
    assert store.version() == 1
    assert sorted(report.added) == sorted(s.id for s in live.sessions)
    assert len(report.added) == 6
    assert {(s.revision, s.modified, s.status) for s in live.sessions} == {(0, FIRST, Status.CONFIRMED)}
    assert live.conference == CONFERENCE


def test_live_round_trips_every_field(store: Store) -> None:
    original = talk("Compilers for Everyone", 11, "Grace Hopper")
    original = dataclasses.replace(original, kind="keynote", slides=True, url="https://example.org/s/1")

    store.ingest(schedule(original), now=FIRST)

    live = store.live()
    assert live is not None
    (stored,) = live.sessions
    assert stored == dataclasses.replace(original, id=stored.id, revision=0, modified=FIRST)


def test_same_pages_again_change_nothing(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    before = store.live()

    report = store.ingest(schedule(*six_talks()), now=SECOND)

    assert report.empty
    assert report.unchanged == 6
    assert (report.version, report.no_change, [r.version for r in store.history()]) == (1, True, [1])
    assert store.live() == before


def test_moved_removed_retitled_bump_exactly_those_three(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    before = by_title(store.live())
    talks = list(six_talks())
    talks[0] = dataclasses.replace(talks[0], start=at(17), end=at(17, 25))  # moved
    talks[1] = dataclasses.replace(talks[1], title="Compilers for Everybody")  # retitled
    del talks[2]  # removed

    report = store.ingest(schedule(*talks), now=SECOND)

    after = by_title(store.live())
    moved = after["Scaling Training with FSDP2"]
    retitled = after["Compilers for Everybody"]
    removed = after["Quantization in Practice"]
    assert moved.id == before["Scaling Training with FSDP2"].id
    assert retitled.id == before["Compilers for Everyone"].id
    assert removed.id == before["Quantization in Practice"].id
    assert report.changed == {moved.id: ("start", "end"), retitled.id: ("title",)}
    assert report.cancelled == (removed.id,)
    assert report.added == ()
    assert removed.status is Status.CANCELLED
    bumped = {s.title for s in after.values() if s.revision == 1}
    assert bumped == {"Scaling Training with FSDP2", "Compilers for Everybody", "Quantization in Practice"}
    assert {s.modified for s in after.values() if s.revision == 1} == {SECOND}
    assert {s.revision for s in after.values() if s.revision != 1} == {0}


def test_removed_session_that_returns_is_restored(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    store.ingest(schedule(*talks[:5]), now=SECOND)

    report = store.ingest(schedule(*talks), now=THIRD)

    back = by_title(store.live())["Distributed Checkpointing"]
    assert report.restored == (back.id,)
    assert (back.status, back.revision, back.modified) == (Status.CONFIRMED, 2, THIRD)


def test_cancelled_session_stays_cancelled_without_new_revisions(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    store.ingest(schedule(*talks[:5]), now=SECOND)

    report = store.ingest(schedule(*talks[:5]), now=THIRD)

    gone = by_title(store.live())["Distributed Checkpointing"]
    assert report.empty
    assert (gone.status, gone.revision, gone.modified) == (Status.CANCELLED, 1, SECOND)


def test_losing_most_sessions_is_refused_and_store_unchanged(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    before = store.live()

    with pytest.raises(IngestRefused, match="cancel 3 of 6 live sessions"):
        store.ingest(schedule(*six_talks()[:3]), now=SECOND)

    assert store.live() == before
    assert store.version() == 1


def test_losing_exactly_a_third_is_accepted(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)

    report = store.ingest(schedule(*six_talks()[:4]), now=SECOND)

    assert len(report.cancelled) == 2


def test_forced_ingest_cancels_the_missing_sessions(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)

    report = store.ingest(schedule(*six_talks()[:1]), force=True, now=SECOND)

    live = store.live()
    assert live is not None
    assert len(report.cancelled) == 5
    assert [s.status for s in live.sessions].count(Status.CANCELLED) == 5


def test_failure_mid_ingest_leaves_store_unchanged(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    before = store.live()
    talks = [dataclasses.replace(t, description="Edited.") for t in six_talks()]
    writes = 0

    def fail_on_session_update(conn: object, cursor: object, statement: str, *rest: object) -> None:
        # The session rows are written last (one executemany), after the conference row and
        # the version row: failing there leaves those two to be rolled back.
        nonlocal writes
        if statement.startswith("UPDATE schedule_session"):
            writes += 1
            raise RuntimeError("disk on fire")

    event.listen(store.engine, "before_cursor_execute", fail_on_session_update)
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.ingest(schedule(*talks), now=SECOND)
    event.remove(store.engine, "before_cursor_execute", fail_on_session_update)

    assert writes == 1
    assert store.live() == before
    assert store.version() == 1


def test_bio_edit_is_stored_without_a_new_revision(store: Store) -> None:
    original = talk("Compilers for Everyone", 11, "Grace Hopper")
    store.ingest(schedule(original), now=FIRST)
    edited = dataclasses.replace(
        original, speakers=(Speaker("Grace Hopper", role="Engineer", affiliation="ACME", bio="New bio."),)
    )

    report = store.ingest(schedule(edited), now=SECOND)

    (stored,) = by_title(store.live()).values()
    assert report.empty
    assert (stored.speakers[0].bio, stored.revision, stored.modified) == ("New bio.", 0, FIRST)


def test_room_change_is_reported_as_room(store: Store) -> None:
    original = talk("Compilers for Everyone", 11, "Grace Hopper")
    store.ingest(schedule(original), now=FIRST)

    report = store.ingest(schedule(dataclasses.replace(original, room=Room("Junior Stage"))), now=SECOND)

    assert list(report.changed.values()) == [("room",)]


OTHER = Conference(name="Other Conf", timezone="Europe/Berlin", start_date=date(2026, 5, 1), end_date=date(2026, 5, 2))


def test_conferences_are_kept_apart(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)

    report = store.ingest(schedule(*six_talks()[:1], conference=OTHER), now=SECOND)

    paris = store.live(CONFERENCE.slug)
    other = store.live(OTHER.slug)
    assert other is not None and other.conference == OTHER and len(other.sessions) == 1
    assert (report.added, report.cancelled) == ((other.sessions[0].id,), ())
    assert paris is not None and len(paris.sessions) == 6


def test_a_removal_then_an_ingest_never_gives_the_store_the_changes_it_had(store: Store) -> None:
    # A server polls changes(): were the removed conference's newest version id given again to
    # the next ingest, the pair would read as it did before both and the server would miss them.
    store.ingest(schedule(*six_talks()), now=FIRST)
    store.ingest(schedule(*six_talks()[:1], conference=OTHER), now=SECOND)
    before = store.changes()

    removal.remove(store.engine, OTHER.slug, now=THIRD)
    store.ingest(schedule(*six_talks()[:2], conference=OTHER), now=THIRD)

    assert store.changes() == (before[0] + 1, before[1])


def test_live_without_a_slug_is_the_conference_ingested_first(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    store.ingest(schedule(*six_talks()[:1], conference=OTHER), now=SECOND)

    default = store.live()

    assert store.default_conference() == CONFERENCE.slug
    assert default is not None and default.conference.slug == CONFERENCE.slug


def test_reingesting_one_conference_leaves_the_other_as_it_was(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    store.ingest(schedule(*six_talks()[:2], conference=OTHER), now=SECOND)
    before = store.live(CONFERENCE.slug)
    (paris_before, _) = store.conferences()

    store.ingest(schedule(*six_talks()[:1], conference=OTHER), now=THIRD, force=True)

    (paris_after, other_after) = store.conferences()
    assert store.live(CONFERENCE.slug) == before
    assert paris_after == paris_before
    assert other_after.version == 2 and other_after.sessions == 1


def test_conferences_lists_each_in_ingest_order_with_its_live_sessions(store: Store) -> None:
    store.ingest(schedule(*six_talks()[:3], conference=OTHER), now=FIRST)
    store.ingest(schedule(*six_talks()), now=SECOND)
    store.ingest(schedule(*six_talks()[:5]), now=THIRD)

    summaries = store.conferences()

    assert [(c.slug, c.sessions, c.first_version, c.version) for c in summaries] == [
        (OTHER.slug, 3, 1, 1),
        (CONFERENCE.slug, 5, 2, 2),
    ]
    assert summaries[1].conference == CONFERENCE


def test_conferences_count_the_sessions_from_an_index_not_from_the_rows(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "store.sqlite"))
    store.ingest(schedule(*six_talks()), now=FIRST)
    asked: list[tuple[str, Any]] = []

    def note(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        asked.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", note)
    store.conferences()
    event.remove(store.engine, "before_cursor_execute", note)
    with store.engine.connect() as conn:
        plans = [
            [row[3] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)]
            for statement, parameters in asked
            if "schedule_session" in statement
        ]
    store.close()

    assert plans == [["SCAN schedule_session USING COVERING INDEX ix_schedule_session_conference_status"]]


def test_an_empty_store_lists_no_conferences(store: Store) -> None:
    assert store.conferences() == ()
    assert store.default_conference() is None


def test_history_records_every_version_newest_first(store: Store) -> None:
    first = store.ingest(schedule(*six_talks()), now=FIRST)
    second = store.ingest(schedule(*six_talks()[:5]), now=SECOND)

    assert store.history() == (second, first)


def test_report_counts_describe_the_snapshot(store: Store) -> None:
    report = store.ingest(schedule(*six_talks()), now=FIRST)

    counts = report.counts
    assert (counts.sessions, counts.speakers, counts.rooms, counts.tracks, counts.levels) == (6, 6, 2, 1, 1)
    assert set(report.titles.values()) == {t.title for t in six_talks()}


def test_database_error_becomes_store_error(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    with store.engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE schedule_version")

    with pytest.raises(StoreError, match="store unchanged"):
        store.ingest(schedule(*six_talks()), now=SECOND)
