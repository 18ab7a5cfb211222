"""Fixtures for the job tests: a real store, SQLite and PostgreSQL (its queue in the same database),
a real loopback server of the demo pages, and real CalDAV servers (Radicale, Xandikos) behind a
real counting proxy."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dav_proxy import DavProxy
from postgres_cluster import fresh_schema
from source_server import PageServer, page_server

from feeds.demo import DEMO_DIR
from server.store import Store


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


# The CalDAV job tests run the pusher's real servers (tests/server/caldav/push_helpers.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "caldav"))


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from push_helpers import DavServer

    server = DavServer("radicale", tmp_path_factory.mktemp("radicale") / "root").start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def xandikos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from push_helpers import DavServer

    server = DavServer("xandikos", tmp_path_factory.mktemp("xandikos") / "root").start()
    yield server
    server.stop()


@pytest.fixture(params=["radicale", "xandikos"])
def dav_server(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(request.param)


@pytest.fixture
def proxy(dav_server: Any) -> Iterator[DavProxy]:
    with DavProxy(dav_server.port) as running:
        yield running
