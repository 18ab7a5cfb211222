"""An index on `schedule_session(conference, status)`: every build, and every server as it
starts or learns of a new conference, counts each conference's confirmed sessions
(server.store.Store.conferences), and without it that count read every row of the store, a
few hundred bytes a session, where the index holds a few dozen. Stored rows are untouched; the
index is built from them.

Spelled out here rather than taken from server.store.tables, so this revision keeps meaning what
it means when later revisions change the tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_session_status_index"
down_revision = "0011_session_version_index"
branch_labels = None
depends_on = None

NAME = "ix_schedule_session_conference_status"


def upgrade() -> None:
    # Meets a store that has the index already (one made by create_all from server.store.tables).
    present = {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("schedule_session")}
    if NAME not in present:
        op.create_index(NAME, "schedule_session", ["conference", "status"])


def downgrade() -> None:
    op.drop_index(NAME, table_name="schedule_session")
