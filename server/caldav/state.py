"""The sync-state table: what the pusher created in which calendar, so it only touches its own.

Keyed by (calendar URL, UID) and read per scope (the conference); holds the resource name, the
ETag the server gave our last write, the session revision and a digest of the body we wrote.
The table is `caldav_sync_state` in the store's schema (server.store.tables).

Each row is committed right after the write it records: a crash between the two is the only
window, and the planner/executor recover from it (see execute.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Delete, Engine, Table, delete, select
from sqlalchemy.dialects import postgresql, sqlite

from server.caldav.rows import StateRow, digest
from server.store import schema
from server.store.tables import sync_state

__all__ = ["StateRow", "SyncState", "digest", "insert_or", "sync_state"]


class SyncState:
    """The rows of one calendar and scope. `calendar_url` must not carry credentials."""

    # Every caller names its scope; the default only has to agree with itself.
    def __init__(self, engine: Engine, calendar_url: str, scope: str = "") -> None:
        self.engine = engine
        self.calendar_url = calendar_url
        self.scope = scope
        schema.ensure(engine)

    def rows(self) -> dict[str, StateRow]:
        query = select(sync_state).where(
            sync_state.c.calendar_url == self.calendar_url,
            sync_state.c.scope == self.scope,
        )
        with self.engine.connect() as conn:
            return {
                r.uid: StateRow(
                    uid=r.uid,
                    name=r.name,
                    etag=r.etag,
                    revision=r.revision,
                    digest=r.digest,
                )
                for r in conn.execute(query)
            }

    def save(self, row: StateRow) -> None:
        values = {
            "calendar_url": self.calendar_url,
            "uid": row.uid,
            "scope": self.scope,
            "name": row.name,
            "etag": row.etag,
            "revision": row.revision,
            "digest": row.digest,
            "pushed_at": datetime.now(UTC),
        }
        with self.engine.begin() as conn:
            # One statement, so two writers of a row (a sync that outlived its lease and its
            # successor) never leave it missing or doubled, as delete-then-insert could.
            insert_or(conn, sync_state, values, update=True)

    def forget(self, uid: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(self._where(delete(sync_state), uid))

    def _where(self, stmt: Delete, uid: str) -> Delete:
        return stmt.where(sync_state.c.calendar_url == self.calendar_url, sync_state.c.uid == uid)


def insert_or(conn: Connection, table: Table, values: dict[str, Any], *, update: bool) -> None:
    """INSERT, and on a primary-key clash UPDATE the other columns (`update`) or do nothing:
    one atomic statement on the two databases the store supports (SQLite 3.24+, PostgreSQL)."""
    dialect = conn.dialect.name
    if dialect == "sqlite":
        stmt: Any = sqlite.insert(table).values(**values)
    elif dialect == "postgresql":
        stmt = postgresql.insert(table).values(**values)
    else:
        raise NotImplementedError(f"no upsert for {dialect}")
    keys = [c.name for c in table.primary_key.columns]
    if update:
        changed = {k: stmt.excluded[k] for k in values if k not in keys}
        stmt = stmt.on_conflict_do_update(index_elements=keys, set_=changed)
    else:
        # The primary key is each table's only unique constraint: the only conflict there can be.
        stmt = stmt.on_conflict_do_nothing(index_elements=keys)
    conn.execute(stmt)
