"""Fixtures: Radicale and Xandikos (from tests/conftest.py) and DAViCal (for the tests that ask) started once per session on 127.0.0.1 as real processes, a
fresh calendar per test, and a `backend` parametrized over memory, radicale and xandikos."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine

from tests.helpers.cue_proxy import CueingServer
from tests.helpers.postgres_cluster import fresh_schema
from tests.helpers.push_helpers import Backend, DavBackend, DavServer, MemoryBackend

# `radicale` and `xandikos` (session-scoped) come from tests/conftest.py.


@pytest.fixture(scope="session")
def davical(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DavServer]:
    """DAViCal (Debian's package) on its own PostgreSQL: the server that does not enforce
    no-uid-conflict. Takes some seconds to start (database creation), so only the tests that
    name it use it."""
    if not Path("/usr/share/davical/htdocs").is_dir():
        reason = "DAViCal is not installed (tests/install-system-deps.sh)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)  # CI installs it: missing is a broken setup, not a skip
        pytest.skip(reason)
    server = DavServer("davical", tmp_path_factory.mktemp("davical") / "root").start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def cueing_servers() -> Iterator[dict[str, CueingServer]]:
    """The shared servers (sabre, cyrus, sogo from tests/conftest.py) each behind one counting,
    cueing proxy (tests/helpers/cue_proxy.py), made when a test first asks for one."""
    made: dict[str, CueingServer] = {}
    yield made
    for proxy in made.values():
        proxy.close()


@pytest.fixture(params=["radicale", "xandikos"])
def dav_server(request: pytest.FixtureRequest) -> DavServer:
    server: DavServer = request.getfixturevalue(request.param)
    return server


@pytest.fixture(params=["memory", "radicale", "xandikos"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    made: Backend = MemoryBackend() if request.param == "memory" else DavBackend(request.getfixturevalue(request.param))
    yield made
    made.close()


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = create_engine(f"sqlite:///{tmp_path / 'state.db'}")
    yield made
    made.dispose()


# The lock and lease tests' database, on both kinds.
@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        engine = create_engine(f"sqlite:///{tmp_path / 'locks.db'}")
    else:
        # Upgraded as `confcal db upgrade` does: on PostgreSQL, opening the store only checks.
        engine = create_engine(fresh_schema(request.getfixturevalue("pg_url")))
    yield engine
    engine.dispose()
