"""The store against a real PostgreSQL server (a throwaway cluster on a Unix socket, no TCP).

Skipped locally (failed on CI) when the PostgreSQL server binaries are not installed.
"""

from __future__ import annotations

import dataclasses
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_builders import FIRST, SECOND, THIRD, at, schedule, six_talks

from feeds.model import Status
from server.errors import IngestRefused
from server.store import Store

pytest.importorskip("psycopg")


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return str(candidates[-1]) if candidates else None


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _unavailable(reason: str) -> None:
    # On CI the test command installs PostgreSQL, so a missing server is a broken setup, not a skip.
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def _run(command: list[str]) -> None:
    # PostgreSQL refuses to run as root; CI and dev machines run tests as root.
    if os.geteuid() == 0:
        command = ["runuser", "-u", "postgres", "--", *command]
    subprocess.run(command, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        _unavailable("PostgreSQL server binaries not installed (tests/install-system-deps.sh)")
    if os.geteuid() == 0 and (shutil.which("runuser") is None or not _has_user("postgres")):
        _unavailable("running as root without a postgres user to run the server as")
    # Not pytest's tmp_path: its parents are private to root, and the server runs as postgres.
    base = Path(tempfile.mkdtemp(prefix="confcal-pg-"))
    data, sock = base / "data", base / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
        shutil.chown(sock, "postgres")
    options = f"-c listen_addresses='' -c unix_socket_directories={sock} -c fsync=off"
    try:
        _run([initdb, "-D", str(data), "-U", "postgres", "-A", "trust"])
        # -l sends the server's output to a file: otherwise it holds our pipes open.
        start = [pg_ctl, "-D", str(data), "-l", str(base / "server.log"), "-o", options, "-w", "start"]
        _run(start)
        yield f"postgresql+psycopg://postgres@/postgres?host={sock}"
    finally:
        if (data / "postmaster.pid").exists():
            stop = [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]
            _run(stop)
        shutil.rmtree(base, ignore_errors=True)


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
