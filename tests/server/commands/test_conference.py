"""`confcal conference list|remove`, and the quick start's demo leaving by itself at the first
ingest of a real conference. Real processes on real store files."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from server.crypto import Password
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.picks import PickStore
from server.store.sources import SourceSpec, SourceStore
from server.store.tables import metadata
from tests.helpers.cli_runs import DEMO, DEMO_CHANGED, DEMO_SLUG, ENV, OTHER, confcal, ingest

OTHER_SLUG = "change-conf-2026"
NOW = datetime(2026, 3, 1, 9, tzinfo=UTC)


def rows_of(db: Path, slug: str) -> dict[str, int]:
    """How many rows of each table name `slug` (as conference, scope or slug)."""
    found = {}
    with Store.open(str(db)) as store, store.engine.connect() as conn:
        for table in metadata.sorted_tables:
            for column in ("conference", "scope", "slug"):
                if column in table.c:
                    found[table.name] = conn.execute(
                        select(func.count()).select_from(table).where(table.c[column] == slug)
                    ).scalar_one()
    return {name: count for name, count in found.items() if count}


@pytest.fixture
def two(tmp_path: Path) -> Path:
    """The demo with a pick set, a source and an attached calendar, and another conference."""
    db = tmp_path / "store.sqlite"
    ingest(db, *DEMO)
    ingest(db, *DEMO_CHANGED)
    ingest(db, OTHER)
    with Store.open(str(db)) as store:
        token = PickStore(store.engine).create(DEMO_SLUG, []).token
        PickStore(store.engine).create(OTHER_SLUG, [])
        SourceStore(store.engine).add(SourceSpec(("https://example.org/s.ics",), timedelta(hours=1), DEMO_SLUG), NOW)
        CaldavTargets(store.engine).attach(
            DEMO_SLUG, token, "https://dav.example.org/cal/a/", "ann", Password("secret"), NOW
        )
    return db


def test_list_prints_each_conference_in_ingest_order(two: Path) -> None:
    done = confcal("conference", "list", "--db", str(two))

    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"{DEMO_SLUG}  PyTorch Conference Europe 2026: 27 sessions, version 2\n"
        f"{OTHER_SLUG}  Change Conf 2026: 7 sessions, version 1\n"
    )


def test_remove_with_yes_removes_everything_of_the_conference_and_nothing_else(two: Path) -> None:
    other_before = rows_of(two, OTHER_SLUG)

    done = confcal("conference", "remove", "--db", str(two), "--yes", DEMO_SLUG)

    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"removed PyTorch Conference Europe 2026 ({DEMO_SLUG}): 2 versions, 28 sessions, 1 pick set, "
        "1 source, 1 attached CalDAV calendar\n"
    )
    assert rows_of(two, DEMO_SLUG) == {}
    assert rows_of(two, OTHER_SLUG) == other_before
    assert confcal("conference", "list", "--db", str(two)).stdout == (
        f"{OTHER_SLUG}  Change Conf 2026: 7 sessions, version 1\n"
    )


def test_remove_asks_and_keeps_the_conference_unless_told_yes(two: Path) -> None:
    before = rows_of(two, DEMO_SLUG)

    refused = confcal("conference", "remove", "--db", str(two), DEMO_SLUG, stdin="n\n")
    kept = rows_of(two, DEMO_SLUG)
    accepted = confcal("conference", "remove", "--db", str(two), DEMO_SLUG, stdin="y\n")

    question = (
        f"remove PyTorch Conference Europe 2026 ({DEMO_SLUG}) with 2 versions, 28 sessions, 1 pick set, "
        "1 source, 1 attached CalDAV calendar? [y/N] "
    )
    assert (refused.returncode, refused.stdout, refused.stderr) == (
        1,
        "",
        question + f"confcal conference remove: {DEMO_SLUG} kept\n",
    )
    assert kept == before
    assert (accepted.returncode, accepted.stderr) == (0, question)
    assert rows_of(two, DEMO_SLUG) == {}


def test_removing_an_unknown_conference_is_one_line(two: Path) -> None:
    done = confcal("conference", "remove", "--db", str(two), "--yes", "nope")

    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "confcal conference: error: the store holds no conference 'nope' (`confcal conference list` lists them)\n"
    )


def test_the_first_real_ingest_removes_the_untouched_demo_from_a_running_server(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    serve = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli",
            "serve",
            "--db",
            str(db),
            "--port",
            str(port),
            "--no-jobs",
            "--poll",
            "0.2",
        ],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        listed: list[str] = []
        for _ in range(300):  # up to ~30 s for the server to come up; not a timing assertion
            try:
                listed = [c["slug"] for c in httpx.get(url + "/api/conferences", timeout=2).json()["conferences"]]
                break
            except (httpx.TransportError, ValueError):
                time.sleep(0.1)

        done = ingest(db, OTHER)

        after = listed
        # The server polls every 0.2 s; the new conference may show before the demo is gone (the
        # removal is the ingest's second transaction), so wait for the demo to leave.
        for _ in range(300):
            after = [c["slug"] for c in httpx.get(url + "/api/conferences", timeout=2).json()["conferences"]]
            if DEMO_SLUG not in after:
                break
            time.sleep(0.1)
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=30)

    assert listed == [DEMO_SLUG]
    assert done.stdout.splitlines()[-1] == (
        f"removed the demo conference {DEMO_SLUG}, which the store held only as the quick start seeded it: "
        f"{OTHER_SLUG} is now the default conference"
    )
    assert after == [OTHER_SLUG]
    assert rows_of(db, DEMO_SLUG) == {}


def test_a_demo_ingested_again_is_not_removed(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite"
    ingest(db, *DEMO)
    ingest(db, *DEMO_CHANGED)

    done = ingest(db, OTHER)

    assert "demo" not in done.stdout
    with Store.open(str(db)) as store:
        assert [c.slug for c in store.conferences()] == [DEMO_SLUG, OTHER_SLUG]
