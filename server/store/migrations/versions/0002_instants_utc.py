"""Instants: one convention, `timestamp with time zone` holding UTC (server.store.tables.Instant).

Before this revision PostgreSQL stores had `timestamp without time zone` (naive UTC) in every
instant column but the CalDAV state's `pushed_at`, which was `with time zone`. Each naive column
becomes `with time zone`, its values read as UTC (`AT TIME ZONE 'UTC'`), so every stored instant
stays the same instant. PostgreSQL rewrites each table once, inside the upgrade's transaction.

SQLite has no time types: its stores already hold every instant as the same fixed-width UTC text,
whichever way the column was declared, so nothing changes there.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_instants_utc"
down_revision = "0001_baseline"
branch_labels = None
depends_on = None

NAIVE = {
    "schedule_version": ["created"],
    "schedule_session": ["starts_at", "ends_at", "modified"],
    "personal_picks": ["created", "updated", "last_access"],
    "schedule_source": ["last_fetch", "next_run", "lease_until", "created"],
}


def _convert(aware: bool) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    zone = "AT TIME ZONE 'UTC'"
    for table, columns in NAIVE.items():
        for column in columns:
            op.alter_column(
                table,
                column,
                type_=sa.DateTime(timezone=aware),
                existing_type=sa.DateTime(timezone=not aware),
                postgresql_using=f"{column} {zone}",
            )


def upgrade() -> None:
    _convert(aware=True)


def downgrade() -> None:
    # timestamptz AT TIME ZONE 'UTC' is the UTC wall time: the naive value the old code wrote.
    _convert(aware=False)
