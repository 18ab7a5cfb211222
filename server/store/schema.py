"""The store's schema version: Alembic revisions (server/store/migrations/) applied in one place.

`ensure(engine)` is what every component calls before it uses the store. On SQLite it brings the
file up to date by itself (one machine, one file: nobody else to ask). On any other database it
only checks, and a store that is behind stops the command with one line asking for
`confcal db upgrade`: altering a shared server's schema is an operator's decision, taken once,
before the new version's processes start.

Several processes may start at once on one new or old store. The upgrade therefore runs under one
lock and reads the store's revision again once it holds it, so the first process upgrades and the
others find nothing left to do:
- PostgreSQL: a transaction-scoped advisory lock (pg_advisory_xact_lock), with the whole upgrade
  in that one transaction (PostgreSQL's DDL is transactional: a failed upgrade leaves nothing);
- SQLite: BEGIN IMMEDIATE, which takes the database's write lock before the revision is read
  (other processes wait for it up to the engine's busy timeout).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import SQLAlchemyError

from server.errors import StoreError

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).with_name("migrations")
# The newest revision under migrations/versions/, which tests/server/store/test_schema.py checks is
# Alembic's one head: `ensure` recognizes an up-to-date store by one query, without loading Alembic
# (a slow import every command would pay). Alembic loads when there is anything to do.
HEAD = "0012_session_status_index"
# Any fixed 64-bit number, the same in every confcal process: "confcal schema upgrade".
ADVISORY_LOCK = 0x636F6E6663616C31


class StoreOutdated(StoreError):
    """The store's schema is not the one this confcal needs, and only `confcal db upgrade` may change it."""


@dataclass(frozen=True)
class Upgrade:
    """What `upgrade` did: the revision found (None: no revision, a new or pre-migration store)
    and the one left."""

    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, made in code (no alembic.ini to ship or find)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("file_template", "%%(rev)s")  # a new revision's file is named by its id
    cfg.attributes["connection"] = connection
    return cfg


@functools.cache
def _scripts() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(config())


def head() -> str:
    """The revision this code needs. One head: two means two changes were chained after the same
    revision, which the test suite refuses (tests/server/store/test_schema.py)."""
    heads = _scripts().get_heads()
    if len(heads) != 1:
        raise StoreError(f"the store's migrations have {len(heads)} heads ({', '.join(heads)}); chain them")
    return heads[0]


def current(engine: Engine) -> str | None:
    """The store's revision; None for an empty store or one made before migrations."""
    try:
        with engine.connect() as conn:
            return _current(conn)
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read the store's schema revision: {_first_line(exc)}") from exc


def _current(conn: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    heads = MigrationContext.configure(conn).get_current_heads()
    return heads[0] if heads else None


def upgrade(engine: Engine) -> Upgrade:
    """Bring the store to `head()`, under the upgrade lock; a no-op on an up-to-date store."""
    from alembic import command
    from alembic.util.exc import CommandError

    wanted = head()
    try:
        with _locked(engine) as conn:
            before = _current(conn)
            if before != wanted:
                _check_known(before, engine)
                command.upgrade(config(conn), wanted)
            return Upgrade(before, wanted)
    except (SQLAlchemyError, CommandError) as exc:
        raise StoreError(f"cannot upgrade the store's schema: {_first_line(exc)}") from exc


def ensure(engine: Engine) -> None:
    """Make sure the store has the schema this code needs: upgrade SQLite, check anything else."""
    if _recorded(engine) == [HEAD]:
        return
    found, wanted = current(engine), head()
    if found == wanted:
        return
    if engine.dialect.name == "sqlite":
        upgrade(engine)
        return
    _check_known(found, engine)
    url = engine.url.render_as_string(hide_password=True)
    raise StoreOutdated(
        f"the store at {url} has schema revision {found or 'none'} and this confcal needs {wanted}: "
        "run `confcal db upgrade` with the same --db"
    )


def _recorded(engine: Engine) -> list[str]:
    """The revisions in Alembic's own table (alembic_version), read without Alembic; none when
    the table is missing or unreadable (a new or pre-migration store: Alembic then looks)."""
    try:
        with engine.connect() as conn:
            return [str(v) for (v,) in conn.execute(text("SELECT version_num FROM alembic_version"))]
    except SQLAlchemyError:
        return []


def _check_known(found: str | None, engine: Engine) -> None:
    from alembic.util.exc import CommandError

    if found is None:
        return
    try:
        _scripts().get_revision(found)
    except CommandError:
        url = engine.url.render_as_string(hide_password=True)
        raise StoreOutdated(
            f"the store at {url} has schema revision {found}, unknown to this confcal: "
            "it was upgraded by a newer version"
        ) from None


@contextmanager
def _locked(engine: Engine) -> Iterator[Connection]:
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK})
        yield conn
        conn.commit()


def _first_line(exc: BaseException) -> str:
    message = str(getattr(exc, "orig", None) or exc)
    return message.splitlines()[0] if message else type(exc).__name__
