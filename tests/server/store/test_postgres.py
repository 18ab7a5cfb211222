"""PostgreSQL against SQLite side by side: the same ingests give the same live schedule and history.

Every other store test runs on both backends through the `store` fixture (conftest.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from feeds.model import Status
from server.errors import IngestRefused
from server.store import Store
from tests.helpers.store_builders import FIRST, SECOND, THIRD, at, empty_postgres, schedule, six_talks


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[Store]:
    store = Store.open(empty_postgres(pg_url))
    yield store
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
