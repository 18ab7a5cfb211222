"""Fixtures for the job tests: a real store, SQLite and PostgreSQL (its queue in the same database),
and a real loopback server of the demo pages. The real CalDAV servers (Radicale, Xandikos) and the
counting proxy in front of them are tests/conftest.py's, shared with tests/deploy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from feeds.demo import DEMO_DIR
from server.store import Store
from tests.helpers.postgres_cluster import fresh_schema
from tests.helpers.source_server import PageServer, page_server


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = str(tmp_path / "store.sqlite")
    else:
        url = fresh_schema(request.getfixturevalue("pg_url"))
    opened = Store.open(url)
    yield opened
    opened.close()


@pytest.fixture
def pages() -> Iterator[PageServer]:
    with page_server() as server:
        server.put_folder(DEMO_DIR)
        yield server


@pytest.fixture
def demo_urls(pages: PageServer) -> list[str]:
    return [pages.base + "/" + page.name for page in sorted(DEMO_DIR.iterdir())]
