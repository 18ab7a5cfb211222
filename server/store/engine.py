"""How the store is opened (where it lives: server.store.location).

SQLite is opened in WAL journal mode with a busy timeout. WAL lets readers and one writer work
at once (https://sqlite.org/wal.html): the server keeps answering and polling while an ingest
writes. Writers still take turns; a writer that finds the database locked waits up to
BUSY_TIMEOUT_S (sqlite3_busy_timeout) before it fails, and callers turn that failure into
`StoreBusy`, never a crash. The ingest holds the write lock only while it writes (server.store.store).

The store holds pick tokens (each one a reader's key to their picks) and encrypted CalDAV
passwords, so a SQLite file confcal creates is readable by its owner only (0600), as the key file
beside it is (server.crypto); SQLite gives its -wal and -shm files the database file's mode. The
default folder is created 0700. A file or folder that exists already keeps the mode it has.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from server.errors import StoreError
from server.store.location import BUSY_TIMEOUT_S


def display(url: str) -> str:
    """The URL with any password masked, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def make_engine(url: str) -> Engine:
    try:
        parsed = make_url(url)
        if parsed.get_backend_name() != "sqlite":
            return create_engine(url)
        engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S})
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise StoreError(f"cannot open store {display(url)}: {exc}") from exc
    if parsed.database not in (None, "", ":memory:"):
        event.listen(engine, "do_connect", _create_private(parsed.database))
        event.listen(engine, "connect", _use_wal)
    return engine


def _create_private(database: str) -> Callable[..., None]:
    """Before SQLite opens the file: create it empty with mode 0600 if it does not exist (an
    empty file is an empty database), so it is never there with the umask's mode, not even for
    an instant. SQLite would create it 0644 under the usual umask."""

    def create(*_args: object) -> None:
        try:
            os.close(os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass
        except OSError:
            pass  # SQLite's own open reports what is wrong, as it did before

    return create


def _use_wal(dbapi_connection: Any, _record: object) -> None:
    # The journal mode is stored in the database file; setting it again is a cheap no-op. Turning
    # a new file to WAL needs it alone, and SQLite refuses at once (SQLITE_BUSY, its busy timeout
    # not applied) while another process writes it: the first connections of processes started
    # together on a new store. So this waits as every other writer does, up to BUSY_TIMEOUT_S.
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    cursor = dbapi_connection.cursor()
    try:
        while True:
            try:
                cursor.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                    raise
                time.sleep(_WAL_RETRY_S)
    finally:
        cursor.close()


_WAL_RETRY_S = 0.01
