"""Fixtures for the HTTP app tests: a real SQLite store, the demo and hand-built schedules."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from starlette.applications import Starlette

from feeds.demo import DEMO_TZ, demo_sources
from feeds.model import (
    Conference,
    Level,
    Room,
    Schedule,
    Session,
    Speaker,
    Status,
    Track,
)
from feeds.pipeline import load_schedule
from server.logs import AccessHandler
from server.store import Store
from server.web.app import create_app
from server.web.demo import seed_demo
from tests.helpers.app_helpers import CHANGED_PAGE, NOW, Http, paris
from tests.helpers.caldav_helpers import DavServer


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """For the tests on `access_file` (test_access_log.py): confcal.access with serve's set-up, its
    AccessHandler alone. pytest adds its capture handlers to every non-propagating logger at the
    start of each test phase, after the fixtures of the set-up phase ran; with them there the app
    would log records instead of handing lines to the handler. Runs after pytest's logging
    wrapper has added them, right before the test function."""
    if "access_file" in getattr(item, "fixturenames", ()):
        logger = logging.getLogger("confcal.access")
        logger.handlers[:] = [h for h in logger.handlers if isinstance(h, AccessHandler)]


@pytest.fixture(scope="session")
def demo_schedule() -> Schedule:
    return load_schedule(demo_sources(), DEMO_TZ).schedule


@pytest.fixture(scope="session")
def changed_schedule() -> Schedule:
    """The seed pages with one session retitled, one moved and one removed (fixtures/002_changed.txt)."""
    sources = [s for s in demo_sources() if "002_" not in Path(s).name] + [str(CHANGED_PAGE)]
    return load_schedule(sources, DEMO_TZ).schedule


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "store.sqlite"))
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def demo_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Starlette]:
    """An app over a store seeded with the demo at start-up, shared by read-only tests."""
    opened = Store.open(str(tmp_path_factory.mktemp("demo") / "store.sqlite"))
    yield create_app(opened, seed=lambda: seed_demo(opened), clock=lambda: NOW)
    opened.close()


@pytest.fixture
def http(demo_app: Starlette) -> Http:
    return Http(demo_app)


@pytest.fixture(scope="session")
def small_schedule() -> Schedule:
    """Hand-built: two tracks, two rooms, two levels, one cancelled session, markup in a title."""
    conference = Conference("Tiny Conf", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7), city="Paris")
    ada = Speaker("Ada Lovelace", affiliation="Engines")
    bob = Speaker("Bob <b>Bold</b>")
    stamp = datetime(2026, 3, 1, 12, tzinfo=UTC)
    sessions = (
        Session("aaaa000001", "Opening", paris(9), paris(9, 30), kind="keynote", room=Room("Main Hall"),
                track=Track("Core"), level=Level("Beginner"), speakers=(ada,), modified=stamp),
        Session("aaaa000002", "Compilers <script>", paris(10), paris(10, 30), room=Room("Main Hall"),
                track=Track("Compilers"), level=Level("Advanced"), speakers=(bob,), modified=stamp),
        Session("aaaa000003", "Kernels", paris(11), paris(11, 30), room=Room("Side Room"),
                track=Track("Compilers"), level=Level("Beginner"), speakers=(ada, bob), modified=stamp),
        Session("aaaa000004", "Dropped talk", paris(12), paris(12, 30), room=Room("Side Room"),
                track=Track("Core"), level=Level("Advanced"), status=Status.CANCELLED, revision=1,
                modified=datetime(2026, 3, 20, tzinfo=UTC)),
    )  # fmt: skip
    return Schedule(conference, sessions)


# The attach API tests run against both real calendar servers (session-scoped in tests/conftest.py).
@pytest.fixture(params=["radicale", "xandikos"])
def dav(request: pytest.FixtureRequest) -> DavServer:
    server: DavServer = request.getfixturevalue(request.param)
    return server


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Store]:
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        seed_demo(store)
        yield store
