"""Per-version session content: the session rows each schedule version wrote, so any
version can be rebuilt (`confcal diff`, `confcal rollback`, the public changelog).

Revision 0003_version_content, after 0002_instants_utc. Adds one table; no stored row changes. The
versions a store already holds have no content here: the first ingest of each conference after
the upgrade records its live rows under its latest version (server/store/history.py, "baseline"),
and versions before that are listed from their recorded diffs.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_version_content"
down_revision = "0002_instants_utc"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Only when missing, as the baseline does: a store stamped by no revision may already hold it.
    if sa.inspect(op.get_bind()).has_table("schedule_version_content"):
        return
    op.create_table(
        "schedule_version_content",
        sa.Column("conference", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("sessions", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("conference", "version"),
    )


def downgrade() -> None:
    op.drop_table("schedule_version_content")
