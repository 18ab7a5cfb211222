"""One timestamp convention (server.store.tables.Instant): every instant column takes an aware
datetime in any zone and gives back the same instant as aware UTC, on SQLite and PostgreSQL alike,
and compares in SQL by instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from sqlalchemy import DateTime, select

from server.caldav.state import StateRow, SyncState
from server.store import Store, tables
from server.store.picks import PickStore
from server.store.sources import SourceSpec, SourceStore
from tests.helpers.store_builders import FIRST, schedule, six_talks

PARIS_NOON = datetime(2026, 4, 7, 12, 0, 0, 250000, tzinfo=ZoneInfo("Europe/Paris"))  # 10:00:00.25 UTC


def instants_of(store: Store) -> list[datetime]:
    """Every value of every instant column in the store, as the tables read them."""
    found: list[datetime] = []
    with store.engine.connect() as conn:
        for table in tables.metadata.sorted_tables:
            columns = [c for c in table.columns if isinstance(c.type, tables.Instant)]
            if columns:
                found += [v for row in conn.execute(select(*columns)) for v in row if v is not None]
    return found


def test_every_instant_column_is_an_instant() -> None:
    plain = [
        f"{t.name}.{c.name}"
        for t in tables.metadata.sorted_tables
        for c in t.columns
        if isinstance(c.type, DateTime) and not isinstance(c.type, tables.Instant)
    ]

    assert plain == []


def test_every_table_reads_back_aware_utc(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    picks = PickStore(store.engine, clock=lambda: PARIS_NOON)
    picks.touch([picks.create("conf", ["a"]).token], PARIS_NOON)
    SourceStore(store.engine).add(SourceSpec(urls=("https://example.org/s",), interval=timedelta(hours=1)), PARIS_NOON)
    SyncState(store.engine, "https://dav.example.org/c/").save(StateRow("u", "u.ics", '"1"', 0, "0" * 64))

    found = instants_of(store)

    # sessions (start, end, modified), the version, the pick set (created, updated, read) and its
    # change log entry, the new source (next run, created), the CalDAV state row
    assert len(found) == 6 * 3 + 1 + 3 + 1 + 2 + 1
    assert {value.tzinfo for value in found} == {UTC}


def test_an_instant_in_another_zone_is_stored_as_that_instant(store: Store) -> None:
    sources = SourceStore(store.engine)

    added = sources.add(SourceSpec(urls=("https://example.org/s",), interval=timedelta(hours=1)), PARIS_NOON)

    assert added.next_run == datetime(2026, 4, 7, 10, 0, 0, 250000, tzinfo=UTC)
    assert added.next_run.tzinfo is UTC


def test_sql_compares_instants_not_wall_times(store: Store) -> None:
    sources = SourceStore(store.engine)
    sources.add(SourceSpec(urls=("https://example.org/s",), interval=timedelta(hours=1)), PARIS_NOON)
    # 11:30 in UTC+02:00 is 09:30 UTC, before the source is due; as a wall time it is after 10:00.
    earlier = datetime(2026, 4, 7, 11, 30, tzinfo=timezone(timedelta(hours=2)))
    later = datetime(2026, 4, 7, 6, 30, tzinfo=timezone(timedelta(hours=-4)))  # 10:30 UTC

    assert (len(sources.overdue(earlier)), len(sources.overdue(later))) == (0, 1)
