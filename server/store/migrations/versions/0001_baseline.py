"""Baseline: the schema confcal had before migrations (main at 764c031).

Stores made before migrations have no `alembic_version` table, and hold some or all of these
tables: each component created its own at start (the picks table only once the server ran, the
CalDAV state only once someone pushed), and an older store may lack columns added since
(`source_id`, `last_access`, `scope`). So this revision is written to meet any of them: it creates
only the tables that are missing and adds only the missing columns, all nullable or with a
default, so no stored row changes. On an empty database it creates the whole schema.

The tables are spelled out here, not taken from server.store.tables: a revision must keep meaning
what it meant when later revisions change the code's schema.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def _tables() -> list[tuple[str, list[sa.Column[object]]]]:
    return [
        (
            "schedule_conference",
            [
                sa.Column("slug", sa.String(200), primary_key=True),
                sa.Column("name", sa.Text, nullable=False),
                sa.Column("timezone", sa.String(64), nullable=False),
                sa.Column("start_date", sa.Date, nullable=False),
                sa.Column("end_date", sa.Date, nullable=False),
                sa.Column("venue", sa.Text),
                sa.Column("city", sa.Text),
                sa.Column("source_url", sa.Text),
            ],
        ),
        (
            "schedule_version",
            [
                sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                sa.Column("conference", sa.String(200), nullable=False),
                sa.Column("created", sa.DateTime, nullable=False),
                sa.Column("diff", sa.JSON, nullable=False),
                sa.Column("counts", sa.JSON, nullable=False),
            ],
        ),
        (
            "schedule_session",
            [
                sa.Column("conference", sa.String(200), primary_key=True),
                sa.Column("id", sa.String(64), primary_key=True),
                sa.Column("title", sa.Text, nullable=False),
                sa.Column("kind", sa.String(100), nullable=False),
                sa.Column("starts_at", sa.DateTime, nullable=False),
                sa.Column("ends_at", sa.DateTime, nullable=False),
                sa.Column("room_name", sa.Text),
                sa.Column("room_slug", sa.String(200)),
                sa.Column("track_name", sa.Text),
                sa.Column("track_slug", sa.String(200)),
                sa.Column("level_name", sa.Text),
                sa.Column("level_slug", sa.String(200)),
                sa.Column("description", sa.Text, nullable=False),
                sa.Column("speakers", sa.JSON, nullable=False),
                sa.Column("slides", sa.Boolean, nullable=False),
                sa.Column("url", sa.Text),
                sa.Column("status", sa.String(16), nullable=False),
                sa.Column("revision", sa.Integer, nullable=False),
                sa.Column("modified", sa.DateTime),
                sa.Column("version", sa.Integer, nullable=False),
                sa.Column("source_id", sa.Text),
            ],
        ),
        (
            "personal_picks",
            [
                sa.Column("token", sa.String(64), primary_key=True),
                sa.Column("conference", sa.String(200), nullable=False),
                sa.Column("sessions", sa.JSON, nullable=False),
                sa.Column("created", sa.DateTime, nullable=False),
                sa.Column("updated", sa.DateTime, nullable=False),
                sa.Column("last_access", sa.DateTime, nullable=True),
            ],
        ),
        (
            "schedule_source",
            [
                sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
                sa.Column("conference", sa.String(200)),
                sa.Column("urls", sa.JSON, nullable=False),
                sa.Column("tz", sa.String(64)),
                sa.Column("format", sa.String(64)),
                sa.Column("interval", sa.Integer, nullable=False),
                sa.Column("allow_private", sa.Boolean, nullable=False),
                sa.Column("validators", sa.JSON, nullable=False),
                sa.Column("digest", sa.String(64)),
                sa.Column("last_fetch", sa.DateTime),
                sa.Column("result", sa.String(16)),
                sa.Column("message", sa.Text),
                sa.Column("next_run", sa.DateTime, nullable=False),
                sa.Column("generation", sa.Integer, nullable=False),
                sa.Column("lease_until", sa.DateTime),
                sa.Column("created", sa.DateTime, nullable=False),
            ],
        ),
        (
            "caldav_sync_state",
            [
                sa.Column("calendar_url", sa.String, primary_key=True),
                sa.Column("uid", sa.String, primary_key=True),
                sa.Column("scope", sa.String, nullable=False, server_default=""),
                sa.Column("name", sa.String, nullable=False),
                sa.Column("etag", sa.String, nullable=False),
                sa.Column("revision", sa.Integer, nullable=False),
                sa.Column("digest", sa.String, nullable=False),
                sa.Column("pushed_at", sa.DateTime(timezone=True), nullable=False),
            ],
        ),
    ]


# Columns that came after their table: a store made before them has the table without them.
_LATER_COLUMNS = {
    "schedule_session": ["source_id"],
    "personal_picks": ["last_access"],
    "caldav_sync_state": ["scope"],
}


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    present = set(inspector.get_table_names())
    for name, columns in _tables():
        if name not in present:
            op.create_table(name, *columns)
            if name == "schedule_version":
                op.create_index("ix_schedule_version_conference", name, ["conference"])
            continue
        have = {c["name"] for c in inspector.get_columns(name)}
        for column in columns:
            if column.name in _LATER_COLUMNS.get(name, []) and column.name not in have:
                op.add_column(name, column)


def downgrade() -> None:
    for name, _ in reversed(_tables()):
        op.drop_table(name)
