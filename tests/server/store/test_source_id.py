"""A session's source id is stored, read back, added to stores made before it existed, and never
shown in a calendar."""

from __future__ import annotations

import dataclasses
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.ical import render_session
from feeds.model import Schedule
from feeds.pipeline import load_schedule
from server.store import Store

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def seed_with_source_ids() -> Schedule:
    schedule = load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule
    sessions = tuple(dataclasses.replace(s, source_id=f"ev-{i}") for i, s in enumerate(schedule.sessions))
    return dataclasses.replace(schedule, sessions=sessions)


def test_source_ids_are_stored_and_read_back(store: Store) -> None:
    schedule = seed_with_source_ids()

    store.ingest(schedule, now=NOW)
    live = store.live()

    assert live is not None
    assert sorted(s.source_id or "" for s in live.sessions) == sorted(s.source_id or "" for s in schedule.sessions)


def test_a_store_made_before_source_ids_gains_the_column_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with Store.open(str(path)) as store:
        store.ingest(load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule, now=NOW)
    with sqlite3.connect(path) as conn:  # what an older confcal made: no source_id column, no revision
        conn.execute("ALTER TABLE schedule_session DROP COLUMN source_id")
        conn.execute("DROP TABLE alembic_version")

    with Store.open(str(path)) as store:
        report = store.ingest(seed_with_source_ids(), now=NOW)
        live = store.live()

    assert (len(report.added), len(report.changed), report.unchanged) == (0, 0, 28)
    assert live is not None and all(s.source_id for s in live.sessions)


def test_source_id_changes_no_calendar_byte() -> None:
    schedule = load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule
    session = schedule.sessions[0]

    with_id = render_session(schedule.conference, dataclasses.replace(session, source_id="uid-1@example.org"))

    assert with_id == render_session(schedule.conference, session)
