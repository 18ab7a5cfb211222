"""Per-version content (server.store.history): every version can be rebuilt, rolled back to, and
its visible changes listed. Runs on SQLite and PostgreSQL (the `store` fixture)."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import delete

from feeds.model import Session, Status
from server.errors import IngestRefused
from server.store import Store
from server.store.changes import ChangeKind
from server.store.history import UnknownVersion, Written, decode, encode
from server.store.rows import session_row
from server.store.tables import version_content
from tests.helpers.store_builders import FIRST, SECOND, THIRD, at, schedule, six_talks


def edited(talks: tuple[Session, ...]) -> list[Session]:
    """Talk 1 moved to 17:00, talk 2 retitled, talk 3 gone."""
    changed = list(talks)
    changed[0] = dataclasses.replace(changed[0], start=at(17), end=at(17, 25))
    changed[1] = dataclasses.replace(changed[1], title="Compilers for Everybody")
    del changed[2]
    return changed


def by_title(found: dict[str, Session]) -> dict[str, tuple[object, ...]]:
    return {s.title: (s.start, s.status, s.revision) for s in found.values()}


def test_every_version_is_rebuilt_as_it_was_published(store: Store) -> None:
    talks = six_talks()
    first = store.ingest(schedule(*talks), now=FIRST)
    live_then = store.live()
    store.ingest(schedule(*edited(talks)), now=SECOND)

    slug, old = store.content(first.version)
    _, new = store.content(2)

    assert live_then is not None and slug == live_then.conference.slug
    assert sorted(old.values(), key=lambda s: s.id) == sorted(live_then.sessions, key=lambda s: s.id)
    live_now = store.live()
    assert live_now is not None and sorted(new.values(), key=lambda s: s.id) == sorted(
        live_now.sessions, key=lambda s: s.id
    )


def test_rollback_restores_old_content_with_higher_revisions(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    store.ingest(schedule(*edited(talks)), now=SECOND)

    report = store.rollback(1, now=THIRD)

    live = store.live()
    assert live is not None
    assert (report.version, report.rollback_of) == (3, 1)
    assert {s.title: (s.start, s.status, s.revision) for s in live.sessions} == {
        "Scaling Training with FSDP2": (at(10), Status.CONFIRMED, 2),
        "Compilers for Everyone": (at(11), Status.CONFIRMED, 2),
        "Quantization in Practice": (at(12), Status.CONFIRMED, 2),
        "Serving LLMs at Scale": (at(14), Status.CONFIRMED, 0),
        "Graph Breaks Explained": (at(15), Status.CONFIRMED, 0),
        "Distributed Checkpointing": (at(16), Status.CONFIRMED, 0),
    }
    assert (len(report.changed), len(report.restored), report.unchanged) == (2, 1, 3)
    assert store.history()[0].rollback_of == 1


def test_rollback_cancels_sessions_added_since(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks[:5]), now=FIRST)
    store.ingest(schedule(*talks), now=SECOND)

    report = store.rollback(1, now=THIRD)

    live = store.live()
    assert live is not None
    assert {s.title for s in live.sessions if s.cancelled} == {"Distributed Checkpointing"}
    assert len(report.cancelled) == 1


def test_rollback_that_cancels_too_much_is_refused_unless_forced(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks[:2]), now=FIRST)
    store.ingest(schedule(*talks), now=SECOND)
    before = (store.version(), store.live())

    with pytest.raises(IngestRefused):
        store.rollback(1, now=THIRD)
    unchanged = (store.version(), store.live())
    forced = store.rollback(1, now=THIRD, force=True)

    assert unchanged == before
    assert len(forced.cancelled) == 4


def test_unknown_or_foreign_version_is_one_error(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)

    with pytest.raises(UnknownVersion) as unknown:
        store.content(7)
    with pytest.raises(UnknownVersion) as foreign:
        store.rollback(1, conference="another")

    assert str(unknown.value) == "no version 7 in the store"
    assert str(foreign.value) == "version 1 is a version of pytorch-conference-europe-2026, not of another"


def test_store_from_before_recording_starts_at_its_latest_version(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    store.ingest(schedule(*edited(talks)), now=SECOND)
    with store.engine.begin() as conn:  # as a store made before the history table existed
        conn.execute(delete(version_content))
    latest_before = store.live()

    _, rebuilt = store.content(2)
    store.ingest(schedule(*talks), now=THIRD)
    with pytest.raises(UnknownVersion) as too_old:
        store.content(1)
    _, baseline = store.content(2)

    assert latest_before is not None
    assert sorted(rebuilt.values(), key=lambda s: s.id) == sorted(latest_before.sessions, key=lambda s: s.id)
    assert baseline == rebuilt
    assert str(too_old.value) == (
        "version 1 was published before this store recorded session content (from version 2 on)"
    )


def test_changelog_lists_visible_changes_per_version(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    silent = (dataclasses.replace(talks[0], description="A new abstract."), *talks[1:])
    store.ingest(schedule(*silent), now=SECOND)  # nothing people see changed
    store.ingest(schedule(*edited(silent)), now=THIRD)

    entries = store.changelog("pytorch-conference-europe-2026")

    assert [(e.version, e.first, e.visible, e.sessions) for e in entries] == [
        (1, True, True, 6),
        (2, False, False, 6),
        (3, False, True, 5),
    ]
    assert [(c.kind, c.after.title, c.before.start if c.before else None) for c in entries[2].changes] == [
        (ChangeKind.MOVED, "Scaling Training with FSDP2", at(10)),
        (ChangeKind.RETITLED, "Compilers for Everybody", at(11)),
        (ChangeKind.CANCELLED, "Quantization in Practice", at(12)),
    ]


def test_changelog_of_a_store_from_before_recording_uses_the_recorded_diffs(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    store.ingest(schedule(*edited(talks)), now=SECOND)
    with store.engine.begin() as conn:  # as a store made before the content table existed
        conn.execute(delete(version_content))

    before_upgrade = store.changelog("pytorch-conference-europe-2026")
    store.ingest(schedule(*talks), now=THIRD)  # records the baseline (version 2), then version 3
    after_upgrade = store.changelog("pytorch-conference-europe-2026")

    # Version 2 from its diff: moved, retitled and cancelled sessions named, without the old side.
    assert [(c.kind, c.after.title, c.before) for c in before_upgrade[1].changes] == [
        (ChangeKind.MOVED, "Scaling Training with FSDP2", None),
        (ChangeKind.RETITLED, "Compilers for Everybody", None),
        (ChangeKind.CANCELLED, "Quantization in Practice", None),
    ]
    assert after_upgrade[1] == before_upgrade[1]
    assert [(c.kind, c.after.title, c.before is not None) for c in after_upgrade[2].changes] == [
        (ChangeKind.MOVED, "Scaling Training with FSDP2", True),
        (ChangeKind.RETITLED, "Compilers for Everyone", True),
        (ChangeKind.RESTORED, "Quantization in Practice", True),
    ]


def test_written_rows_make_the_sessions_decode_makes_and_know_cancellations_without_them() -> None:
    talks = [dataclasses.replace(s, id=f"talk{n}") for n, s in enumerate(six_talks())]
    talks[2] = dataclasses.replace(talks[2], status=Status.CANCELLED)
    data = encode([session_row("pytorch-conference-europe-2026", s, 1) for s in talks])

    written = Written.of(data)
    cancelled = [written.cancelled(sid) for sid in written.ids()]  # before any session is made

    assert cancelled == [False, False, True, False, False, False]
    assert written.session(talks[4].id) == talks[4]
    assert written.session("no-such-session") is None
    assert list(written) == decode(data) == talks
    assert written[1:3] == talks[1:3]
    assert [written.cancelled(sid) for sid in written.ids()] == cancelled  # the same once made
