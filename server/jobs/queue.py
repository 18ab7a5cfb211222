"""The job queue: Huey, kept in the store's own database (docs/architecture.md, "Why Huey").

On SQLite (the default) the queue's tables sit in the store's file, so one machine runs nothing
more than `confcal serve`; on PostgreSQL every `confcal serve` and `confcal worker` sharing the
database shares the queue (Huey dequeues with FOR UPDATE SKIP LOCKED there). The tables are Huey's
own (task, schedule, kv, counter) renamed with a `job_` prefix so they cannot clash with ours.

Huey removes a job from its queue when a worker takes it, so a worker killed mid-job loses that
job. Every job here is therefore "bring row X up to date", made safe to lose and to repeat by the
row itself (a lease and a generation, see server.store.sources), and a periodic sweep re-queues
work whose job was lost.
"""

from __future__ import annotations

from typing import Any

import peewee
from huey import Huey
from huey.contrib.sql_huey import SqlStorage
from sqlalchemy import make_url

from server.errors import ServerError
from server.store.engine import display
from server.store.schema import ADVISORY_LOCK

QUEUE = "confcal"
TABLE_PREFIX = "job_"


class JobsError(ServerError):
    """The job queue cannot be set up on this store."""


class _PrefixedStorage(SqlStorage):  # type: ignore[misc]  # Huey ships no type hints
    """Huey's SQL storage with its tables renamed (it names them after its model classes), created
    under the store's schema lock.

    The job tables are Huey's, not in our Alembic revisions: their shape belongs to the Huey version
    installed, and Huey creates them when missing (CREATE TABLE/INDEX IF NOT EXISTS) each time a
    queue opens. IF NOT EXISTS alone does not make that safe when several processes start on a new
    database at once: PostgreSQL can fail the second CREATE with a duplicate key in its catalog,
    and SQLite can refuse a deferred transaction's upgrade to a write lock without waiting. So the
    creation runs in one transaction holding the lock schema upgrades take (server.store.schema):
    the advisory lock on PostgreSQL, BEGIN IMMEDIATE on SQLite; whoever comes second finds the
    tables there.
    """

    def create_models(self) -> Any:
        models = super().create_models()
        for model in models:
            model._meta.set_table_name(TABLE_PREFIX + model._meta.table_name)
            # Indexes declared before the rename still point at the old table name.
            for index in model._meta.indexes:
                if isinstance(index, peewee.ModelIndex):
                    index._table = model._meta.table  # type: ignore[attr-defined]
        return models

    def create_tables(self) -> None:
        tables = [self.KV, self.Schedule, self.Task, self.Counter]
        with self.database.connection_context():
            if isinstance(self.database, peewee.SqliteDatabase):
                with self.database.atomic("IMMEDIATE"):
                    self.database.create_tables(tables)
                return
            with self.database.atomic():
                if isinstance(self.database, peewee.PostgresqlDatabase):
                    self.database.execute_sql(  # type: ignore[no-untyped-call]
                        "SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,)
                    )
                self.database.create_tables(tables)


def peewee_database(url: str) -> peewee.Database:
    """The store's SQLAlchemy URL as a peewee database (the ORM Huey's SQL storage is written for)."""
    parsed = make_url(url)
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise JobsError("jobs need a store in a file or a database server, not in memory")
        # As patient with a busy file as the store's engine (pysqlite's default 5 s).
        return peewee.SqliteDatabase(parsed.database, timeout=5)
    if backend == "postgresql":
        options: dict[str, Any] = {
            "user": parsed.username,
            "password": parsed.password,
            "host": parsed.host,
            "port": parsed.port,
            **{key: value for key, value in parsed.query.items() if isinstance(value, str)},
        }
        options = {key: value for key, value in options.items() if value is not None}
        # The store's driver: psycopg 3 for postgresql+psycopg://, else psycopg2.
        return peewee.PostgresqlDatabase(parsed.database, prefer_psycopg3=driver == "psycopg", **options)
    raise JobsError(f"jobs need SQLite or PostgreSQL, not the store at {display(url)}")


def open_queue(url: str) -> Huey:
    """The queue in the database at `url` (a SQLAlchemy URL, as `Store.open` resolved it);
    creates its tables when missing."""
    try:
        return Huey(QUEUE, storage_class=_PrefixedStorage, database=peewee_database(url), utc=True)
    except peewee.PeeweeException as exc:
        raise JobsError(f"cannot open the job queue in {display(url)}: {exc}") from exc
