from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.pipeline import Loaded, load_schedule
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.postgres_cluster import running_postgres

# No per-example deadline anywhere: speed is measured in bench/, and a busy CI machine is not a
# failure (Hypothesis's 200 ms default turned load into flaky fuzz tests).
settings.register_profile("confcal", deadline=None)
settings.load_profile("confcal")

FIXTURES = Path(__file__).resolve().parent / "fixtures"


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


def _shared_dir() -> Path:
    """`../shared` from the repository root; from a git worktree, the one beside the main checkout
    (a worktree's `.git` file names `<main>/.git/worktrees/<name>`)."""
    root = FIXTURES.parent.parent
    candidates = [root.parent / "shared"]
    git = root / ".git"
    if git.is_file():
        gitdir = Path(git.read_text(encoding="utf-8").partition("gitdir:")[2].strip())
        candidates.append(gitdir.parents[2].parent / "shared")
    return next((c for c in candidates if c.is_dir()), candidates[0])


SHARED = _shared_dir()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real schedules in ../shared/data (see ../shared/README.md for their quirks)."""
    return SHARED / "data"
