"""Whether a SQLite store file is intact: SQLite's own checks of its pages and indexes.

A damaged file (a disk error, a copy taken mid-write, bytes overwritten) otherwise shows up as
SQLAlchemy errors wherever a query happens to touch a bad page: a server dying with tracebacks,
or an ingest that reports success into a file that has lost rows. So `confcal serve` and
`confcal ingest` run `PRAGMA quick_check` before they start, and stop with one line naming the
file and what to do. quick_check reads every page once but does not cross-check the indexes
against their tables, which is the slow part of `PRAGMA integrity_check`; that full check is
`confcal db check`. A PostgreSQL store is not checked here: the server checks its own pages
(data checksums, pg_amcheck).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, make_url, text
from sqlalchemy.exc import SQLAlchemyError

from server.errors import StoreError
from server.store.engine import make_engine, resolve_url

# What SQLite reports at most (its own default for integrity_check as well).
MAX_PROBLEMS = 100


class StoreDamaged(StoreError):
    """SQLite found the store file damaged."""


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite store URL that exists; None for any other store, or none yet."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = Path(parsed.database)
    return path if path.exists() else None


def problems(engine: Engine, *, full: bool) -> list[str]:
    """What SQLite finds wrong with the store file, [] when it is intact: `PRAGMA quick_check`,
    or with `full` the slower `PRAGMA integrity_check`."""
    pragma = "integrity_check" if full else "quick_check"
    try:
        with engine.connect() as conn:
            found = [str(line) for (line,) in conn.execute(text(f"PRAGMA {pragma}({MAX_PROBLEMS})"))]
    except SQLAlchemyError as exc:
        # A damaged header or schema page fails the check itself ("database disk image is malformed").
        reason = str(getattr(exc, "orig", None) or exc)
        return [reason.splitlines()[0] if reason else type(exc).__name__]
    return [] if found == ["ok"] else found


def check_intact(db: str | None) -> None:
    """StoreDamaged when the SQLite store `db` names exists and fails quick_check; any other store,
    or a file not there yet, passes."""
    path = sqlite_file(resolve_url(db))
    if path is None:
        return
    engine = make_engine(f"sqlite:///{path}")
    try:
        found = problems(engine, full=False)
    finally:
        engine.dispose()
    if found:
        raise StoreDamaged(
            f"store {path} is damaged ({found[0]}): restore it from a backup, "
            f"or run `confcal db check --db {path}` to see what is wrong"
        )
