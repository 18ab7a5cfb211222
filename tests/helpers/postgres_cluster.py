"""A throwaway PostgreSQL cluster from Debian's server binaries, on a Unix socket (no TCP), for the
tests that need the real server: the store's, and the job workers' shared backend.

Skipped locally (failed on CI) when the PostgreSQL server binaries are not installed.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest


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


def _unavailable(reason: str) -> NoReturn:
    # On CI the test command installs PostgreSQL, so a missing server is a broken setup, not a skip.
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def _run(command: list[str]) -> None:
    # PostgreSQL refuses to run as root; CI and dev machines run tests as root.
    if os.geteuid() == 0:
        command = ["runuser", "-u", "postgres", "--", *command]
    subprocess.run(command, check=True, capture_output=True, timeout=60)


@contextmanager
def running_postgres() -> Iterator[str]:
    """A fresh cluster for the block; yields its SQLAlchemy URL (psycopg 3)."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        _unavailable("PostgreSQL server binaries not installed (tests/install-system-deps.sh)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        _unavailable("running as root and runuser(1) is not on PATH to run the server as postgres")
    if os.geteuid() == 0 and not _has_user("postgres"):
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


def fresh_schema(url: str, *, upgrade: bool = True) -> str:
    """Empty the database at `url` (a new public schema, so nothing an earlier test made is
    left) and, unless `upgrade` is false, bring it to the current revision as `confcal db
    upgrade` does (on PostgreSQL, opening the store only checks the schema). Returns `url`."""
    from sqlalchemy import create_engine

    from server.store import schema

    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("DROP SCHEMA public CASCADE")
            conn.exec_driver_sql("CREATE SCHEMA public")
        if upgrade:
            schema.upgrade(engine)
    finally:
        engine.dispose()
    return url
