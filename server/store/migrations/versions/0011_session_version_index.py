"""An index on `schedule_session(conference, version)`: a server holding a conference reads the
rows written after the version it holds (server.store.Store.read_since), and without it that
query read every session of the store. Stored rows are untouched; the index is built from them.

Spelled out here rather than taken from server.store.tables, so this revision keeps meaning what
it means when later revisions change the tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_session_version_index"
down_revision = "0010_invitations"
branch_labels = None
depends_on = None

NAME = "ix_schedule_session_conference_version"


def upgrade() -> None:
    # Meets a store that has the index already (one made by create_all from server.store.tables).
    present = {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("schedule_session")}
    if NAME not in present:
        op.create_index(NAME, "schedule_session", ["conference", "version"])


def downgrade() -> None:
    op.drop_index(NAME, table_name="schedule_session")
