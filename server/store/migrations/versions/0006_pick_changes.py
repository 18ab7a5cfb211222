"""The pick sets' change log: each server process re-reads only the sets changed
since it last looked, instead of every set it holds each second (server.store.picks).

Spelled out here rather than taken from server.store.tables, so this revision keeps meaning what
it means when later revisions change the tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_pick_changes"
down_revision = "0005_caldav_targets"
branch_labels = None
depends_on = None


def upgrade() -> None:
    present = set(sa.inspect(op.get_bind()).get_table_names())
    if "pick_changes" not in present:
        op.create_table(
            "pick_changes",
            sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("token", sa.String(64), nullable=False),
            sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        )
    if "pick_change_counter" not in present:
        counter = op.create_table(
            "pick_change_counter",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("seq", sa.Integer, nullable=False),
        )
        # The one row every write numbers its changes from.
        op.bulk_insert(counter, [{"id": 1, "seq": 0}])


def downgrade() -> None:
    op.drop_table("pick_change_counter")
    op.drop_table("pick_changes")
