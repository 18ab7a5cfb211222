"""Every store test runs on SQLite and on PostgreSQL: `store` is parametrized over both backends.

PostgreSQL is one throwaway cluster per session (tests/conftest.py's pg_url); each test gets an empty
schema, so tables any module adds are covered without listing them here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.store import Store
from tests.helpers.store_builders import empty_postgres

BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "store.sqlite")
    return empty_postgres(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = Store.open(store_url)
    yield opened
    opened.close()
