"""The store against a real PostgreSQL server (tests/postgres_cluster.py: a throwaway cluster on a
Unix socket, no TCP; skipped locally, failed on CI, when the server binaries are not installed)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_cluster import running_postgres
from store_builders import FIRST, SECOND, THIRD, at, schedule, six_talks

from feeds.model import Status
from server.errors import IngestRefused
from server.store import Store

pytest.importorskip("psycopg")


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with running_postgres() as url:
        yield url


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[Store]:
    store = Store.open(pg_url)
    yield store
    with store.engine.begin() as conn:
        for table in ("schedule_session", "schedule_version", "schedule_conference"):
            conn.exec_driver_sql(f"DELETE FROM {table}")
    store.close()


def test_postgres_store_behaves_like_sqlite(pg_store: Store, tmp_path: Path) -> None:
    talks = list(six_talks())
    edited = list(talks)
    edited[0] = dataclasses.replace(edited[0], start=at(17), end=at(17, 25))
    del edited[2]
    with Store.open(str(tmp_path / "ref.sqlite")) as reference:
        for store in (pg_store, reference):
            store.ingest(schedule(*talks), now=FIRST)
            store.ingest(schedule(*talks), now=SECOND)
            store.ingest(schedule(*edited), now=THIRD)
        expected = reference.live()
        expected_history = [dataclasses.replace(r, version=0) for r in reference.history()]

    assert pg_store.live() == expected
    assert [dataclasses.replace(r, version=0) for r in pg_store.history()] == expected_history
    assert pg_store.version() == pg_store.history()[0].version


def test_postgres_refusal_leaves_store_unchanged(pg_store: Store) -> None:
    pg_store.ingest(schedule(*six_talks()), now=FIRST)
    before = (pg_store.version(), pg_store.live())

    with pytest.raises(IngestRefused):
        pg_store.ingest(schedule(*six_talks()[:1]), now=SECOND)

    assert (pg_store.version(), pg_store.live()) == before
    live = pg_store.live()
    assert live is not None and {s.status for s in live.sessions} == {Status.CONFIRMED}
