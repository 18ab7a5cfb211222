"""CalDAV targets: the calendars the server keeps in sync with pick sets
(server.store.caldav_targets). Passwords are Fernet tokens (server.crypto); instants are
`timestamp with time zone` holding UTC, as every instant since 0002."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_caldav_targets"
down_revision = "0004_caldav_calendar_locks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Like the baseline, meets a store that has the table already (one made by create_all from
    # server.store.tables, as the tests' pre-migration stores are).
    if "caldav_targets" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "caldav_targets",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("conference", sa.String(200), nullable=False),
        sa.Column("pick_token", sa.String(64), nullable=False, unique=True),
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("username", sa.Text, nullable=False),
        sa.Column("password", sa.Text, nullable=False),
        sa.Column("state", sa.String(32), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_sync", sa.DateTime(timezone=True)),
        sa.Column("last_result", sa.String(16)),
        sa.Column("counts", sa.JSON),
        sa.Column("last_error", sa.Text),
        sa.Column("wanted_generation", sa.Integer, nullable=False),
        sa.Column("synced_generation", sa.Integer, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True)),
        sa.Column("lease_owner", sa.String(200)),
        sa.Column("lease_until", sa.DateTime(timezone=True)),
        sa.UniqueConstraint("conference", "url", name="uq_caldav_targets_calendar"),
    )


def downgrade() -> None:
    op.drop_table("caldav_targets")
