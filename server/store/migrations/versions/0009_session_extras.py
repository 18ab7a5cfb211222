"""The conference day: `schedule_conference.day_change`, when one conference day turns over
("HH:MM:SS" in the conference's zone). Conferences stored before it keep midnight, which is what
every day grouping used until now. And what sources carry beyond the basics:
`schedule_session.extras` (links, language, subtitle, do-not-record), NULL for sessions without.

Spelled out here rather than taken from server.store.tables, so this revision keeps meaning what
it means when later revisions change the tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_session_extras"
down_revision = "0008_source_credentials"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("schedule_conference")}
    if "day_change" not in columns:
        with op.batch_alter_table("schedule_conference") as batch:
            batch.add_column(sa.Column("day_change", sa.String(8), nullable=False, server_default="00:00:00"))
    if "extras" not in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("schedule_session")}:
        with op.batch_alter_table("schedule_session") as batch:
            batch.add_column(sa.Column("extras", sa.JSON))


def downgrade() -> None:
    with op.batch_alter_table("schedule_session") as batch:
        batch.drop_column("extras")
    with op.batch_alter_table("schedule_conference") as batch:
        batch.drop_column("day_change")
