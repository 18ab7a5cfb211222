"""The CalDAV sync state (server.caldav.state) in a real store, SQLite and PostgreSQL: rows are kept
per calendar and scope, saved again in place, and forgotten one by one."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select

from server.caldav.state import StateRow, SyncState, sync_state
from server.store import Store
from tests.helpers.postgres_cluster import fresh_schema

CALENDAR = "https://dav.example.org/calendars/me/conf/"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = str(tmp_path / "store.sqlite")
    else:
        url = fresh_schema(request.getfixturevalue("pg_url"))
    with Store.open(url) as opened:
        yield opened


def row(uid: str, revision: int = 0) -> StateRow:
    return StateRow(uid=uid, name=f"{uid}.ics", etag=f'"{uid}-{revision}"', revision=revision, digest="0" * 64)


def test_rows_are_kept_per_calendar_and_scope(store: Store) -> None:
    mine = SyncState(store.engine, CALENDAR, scope="pytorch")
    other_scope = SyncState(store.engine, CALENDAR, scope="pycon")
    other_calendar = SyncState(store.engine, CALENDAR + "other/", scope="pytorch")

    mine.save(row("a"))
    mine.save(row("b"))
    other_scope.save(row("c"))
    other_calendar.save(row("a", revision=3))

    assert mine.rows() == {"a": row("a"), "b": row("b")}
    assert other_scope.rows() == {"c": row("c")}
    assert other_calendar.rows() == {"a": row("a", revision=3)}


def test_saving_again_replaces_the_row_and_forget_drops_one(store: Store) -> None:
    state = SyncState(store.engine, CALENDAR, scope="pytorch")
    state.save(row("a"))
    state.save(row("b"))

    state.save(row("a", revision=1))
    state.forget("b")

    assert SyncState(store.engine, CALENDAR, scope="pytorch").rows() == {"a": row("a", revision=1)}


@pytest.mark.usefixtures("new_york_machine")
def test_a_save_records_the_utc_instant_on_a_machine_in_another_zone(store: Store) -> None:
    # pushed_at is an instant: a machine whose zone is New York must not store its wall time as UTC.
    before = datetime.now(UTC)

    SyncState(store.engine, CALENDAR, scope="pytorch").save(row("a"))

    with store.engine.connect() as conn:
        pushed_at = conn.execute(select(sync_state.c.pushed_at)).scalar_one()
    assert before <= pushed_at <= datetime.now(UTC)
