"""Invitations by e-mail (server.store.invitations): who asked for a pick set's sessions as
calendar invitations, the address as a Fernet token (server.crypto) with a keyed HMAC beside it,
and what was last sent about each session. Instants are `timestamp with time zone` holding UTC.

Spelled out here rather than taken from server.store.tables, so this revision keeps meaning what
it means when later revisions change the tables.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_invitations"
down_revision = "0009_session_extras"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Meets a store that has the tables already (one made by create_all from server.store.tables).
    present = set(sa.inspect(op.get_bind()).get_table_names())
    if "invitations" not in present:
        op.create_table(
            "invitations",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("conference", sa.String(200), nullable=False),
            sa.Column("pick_token", sa.String(64), nullable=False, unique=True),
            sa.Column("address", sa.Text, nullable=False),
            sa.Column("address_key", sa.String(64), nullable=False),
            sa.Column("site_url", sa.Text, nullable=False),
            sa.Column("state", sa.String(16), nullable=False),
            sa.Column("confirm_key", sa.String(64), unique=True),
            sa.Column("confirm_expires", sa.DateTime(timezone=True)),
            sa.Column("stop_token", sa.String(64), nullable=False, unique=True),
            sa.Column("created", sa.DateTime(timezone=True), nullable=False),
            sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
            sa.Column("confirmed", sa.DateTime(timezone=True)),
            sa.Column("last_sent", sa.DateTime(timezone=True)),
            sa.Column("requests", sa.Integer, nullable=False),
            sa.Column("cancels", sa.Integer, nullable=False),
            sa.Column("last_error", sa.Text),
            sa.Column("synced_version", sa.Integer, nullable=False),
            sa.Column("synced_picks", sa.DateTime(timezone=True)),
            sa.Column("attempts", sa.Integer, nullable=False),
            sa.Column("next_attempt_at", sa.DateTime(timezone=True)),
            sa.Column("lease_owner", sa.String(200)),
            sa.Column("lease_until", sa.DateTime(timezone=True)),
        )
        op.create_index("ix_invitations_address_key", "invitations", ["address_key"])
    if "invitation_events" not in present:
        op.create_table(
            "invitation_events",
            sa.Column("invitation", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("session", sa.String(64), primary_key=True),
            sa.Column("uid", sa.String(200), nullable=False),
            sa.Column("sequence", sa.Integer, nullable=False),
            sa.Column("revision", sa.Integer, nullable=False),
            sa.Column("cancelled", sa.Boolean, nullable=False),
            sa.Column("sent", sa.DateTime(timezone=True), nullable=False),
        )


def downgrade() -> None:
    op.drop_table("invitation_events")
    op.drop_index("ix_invitations_address_key", table_name="invitations")
    op.drop_table("invitations")
