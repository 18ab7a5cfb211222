"""How Alembic runs the store's revisions: always on a connection server.store.schema hands over
(in `config.attributes["connection"]`), already inside the transaction that holds the upgrade lock,
so there is no alembic.ini and no URL here.

`target_metadata` is the code's schema (server.store.tables), for `confcal db check` and for
drafting a revision with autogenerate; the job queue's tables are Huey's and left out of both.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import Connection

from server.store.tables import metadata


def _ours(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    # Huey creates and owns the job_* tables (server.jobs.queue); they are not in our metadata.
    return not (type_ == "table" and name is not None and name.startswith("job_"))


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        include_object=_ours,
        # SQLite cannot ALTER most things; "batch" operations rebuild the table there instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the store's migrations run through server.store.schema, which passes a connection")
_run(connection)
