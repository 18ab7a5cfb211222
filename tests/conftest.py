from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.pipeline import Loaded, load_schedule
from tests.helpers import shared_caldav
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.paths import FIXTURES, SHARED, with_system_tools
from tests.helpers.postgres_cluster import running_postgres
from tests.helpers.shared_caldav import SharedServer

# No per-example deadline anywhere: speed is measured in bench/, and a busy CI machine is not a
# failure (Hypothesis's 200 ms default turned load into flaky fuzz tests).
settings.register_profile("confcal", deadline=None)
settings.load_profile("confcal")


def pytest_configure(config: pytest.Config) -> None:
    """Every process the tests start finds the system's administration tools
    (tests/helpers/paths.py, `SYSTEM_TOOLS`)."""
    os.environ["PATH"] = with_system_tools(os.environ.get("PATH", ""))


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """One throwaway PostgreSQL cluster for the whole run (tests/helpers/postgres_cluster.py); tests that
    use it start from `fresh_schema(pg_url)`."""
    pytest.importorskip("psycopg")
    with running_postgres() as url:
        yield url


@pytest.fixture
def new_york_machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local zone set to America/New_York (TZ and tzset), restored after: code
    that converts to the machine's zone instead of UTC is invisible on a UTC machine (CI's)."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# Real CalDAV servers, started by the pusher tests' launcher (tests/helpers/push_helpers.py),
# once per session for every test that syncs to a calendar (each test makes its own calendar).


@pytest.fixture(scope="session")
def radicale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.helpers.push_helpers import DavServer

    server = DavServer("radicale", tmp_path_factory.mktemp("radicale") / "root").start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def xandikos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.helpers.push_helpers import DavServer

    server = DavServer("xandikos", tmp_path_factory.mktemp("xandikos") / "root").start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def sabre(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    """sabre/dav 4.7, the engine of Nextcloud and Baikal (../shared/caldav-servers)."""
    server = shared_caldav.start("sabre", tmp_path_factory.mktemp("sabre") / "work")
    yield server
    shared_caldav.stop(server)


@pytest.fixture(scope="session")
def cyrus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    """Cyrus IMAP 3.6's CalDAV, Fastmail's engine: one UID per account, CATEGORIES split."""
    server = shared_caldav.start("cyrus", tmp_path_factory.mktemp("cyrus") / "work")
    yield server
    shared_caldav.stop(server)


@pytest.fixture(scope="session")
def sogo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    """SOGo 5.8: ignores If-None-Match on PUT and If-Match on DELETE, adds CLASS:PUBLIC."""
    server = shared_caldav.start("sogo", tmp_path_factory.mktemp("sogo") / "work")
    yield server
    shared_caldav.stop(server)


@pytest.fixture(params=["radicale", "xandikos"])
def dav_server(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(request.param)


@pytest.fixture
def proxy(dav_server: Any) -> Iterator[DavProxy]:
    """The counting proxy (tests/helpers/dav_proxy.py) in front of `dav_server`."""
    with DavProxy(dav_server.port) as running:
        yield running


@pytest.fixture(scope="session")
def seed_loaded() -> Loaded:
    return load_schedule([str(DEMO_DIR)], DEMO_TZ)


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real schedules in ../shared/data (see ../shared/README.md for their quirks)."""
    return SHARED / "data"
