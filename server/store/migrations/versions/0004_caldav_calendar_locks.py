"""CalDAV: a lease row per calendar, so at most one sync writes to a calendar at a time
(server/caldav/lock.py).

Spelled out here rather than taken from server.store.tables, so this revision keeps meaning what
it means when later revisions change the table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_caldav_calendar_locks"
down_revision = "0003_version_content"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Only if missing: a store whose revision was lost (alembic_version dropped) is upgraded from
    # the baseline again and may hold this table already.
    if "caldav_calendar_locks" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "caldav_calendar_locks",
        sa.Column("calendar_url", sa.String, primary_key=True),
        sa.Column("owner", sa.String, nullable=True),
        sa.Column("until", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("caldav_calendar_locks")
