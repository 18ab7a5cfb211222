"""Whether a SQLite store file is intact: SQLite's own checks of its pages and indexes.

A damaged file (a disk error, a copy taken mid-write, bytes overwritten) otherwise shows up as
SQLAlchemy errors wherever a query happens to touch a bad page: a server dying with tracebacks,
or an ingest that reports success into a file that has lost rows. So `confcal serve` and
`confcal ingest` run `PRAGMA quick_check` before they use the store, and stop with one line
naming the file and what to do. quick_check reads every page once but does not cross-check the
indexes against their tables, which is the slow part of `PRAGMA integrity_check`; that full
check is `confcal db check`. A PostgreSQL store is not checked here: the server checks its own
pages (data checksums, pg_amcheck).

Reading every page grows with the store (a store of a thousand conferences is hundreds of
megabytes), so a command starts the check (`Check`) as soon as it knows the store, in a thread,
and asks for its verdict when it first needs the store: SQLite reads the pages without holding
the interpreter, while the command loads its code or reads its sources. This module loads
neither SQLAlchemy nor anything that does, so a command can start the check before them.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from server.errors import StoreError
from server.store.location import BUSY_TIMEOUT_S, resolve_url, sqlite_file

# What SQLite reports at most (its own default for integrity_check as well).
MAX_PROBLEMS = 100


class StoreDamaged(StoreError):
    """SQLite found the store file damaged."""


def problems(path: Path, *, full: bool) -> list[str]:
    """What SQLite finds wrong with the store file at `path`, [] when it is intact: `PRAGMA
    quick_check`, or with `full` the slower `PRAGMA integrity_check`."""
    pragma = "integrity_check" if full else "quick_check"
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
        try:
            found = [str(line) for (line,) in connection.execute(f"PRAGMA {pragma}({MAX_PROBLEMS})")]
        finally:
            connection.close()
    except sqlite3.Error as exc:
        # A damaged header or schema page fails the check itself ("database disk image is malformed").
        reason = str(exc)
        return [reason.splitlines()[0] if reason else type(exc).__name__]
    return [] if found == ["ok"] else found


class Check:
    """`PRAGMA quick_check` of the SQLite store `db` names (as `--db` does), started at once in a
    thread of its own; `verdict` waits for it. Any other store, or a file not there yet, passes."""

    def __init__(self, db: str | None) -> None:
        self._path = sqlite_file(resolve_url(db))
        self._found: list[str] = []
        self._failed: BaseException | None = None
        self._thread: threading.Thread | None = None
        if self._path is not None:
            # A daemon: a command that fails before it asks for the verdict does not wait for it.
            self._thread = threading.Thread(target=self._run, args=(self._path,), name="store check", daemon=True)
            self._thread.start()

    def _run(self, path: Path) -> None:
        try:
            self._found = problems(path, full=False)
        except BaseException as exc:  # raised again by `verdict`, in the command's thread
            self._failed = exc

    def verdict(self) -> None:
        """Return once the check is done, or raise StoreDamaged naming the file and what to do."""
        if self._thread is not None:
            self._thread.join()
        if self._failed is not None:
            raise self._failed
        if self._found:
            raise StoreDamaged(
                f"store {self._path} is damaged ({self._found[0]}): restore it from a backup, "
                f"or run `confcal db check --db {self._path}` to see what is wrong"
            )


def check_intact(db: str | None) -> None:
    """StoreDamaged when the SQLite store `db` names exists and fails quick_check; any other store,
    or a file not there yet, passes."""
    Check(db).verdict()
