"""Each conference numbers its own versions (1, 2, 3), instead of sharing one global sequence
whose gaps made one conference's changelog read 2, 4, 5.

`schedule_version` gets `number`, unique per conference, filled by counting each conference's
versions in the order they were recorded; the stored references to a version are renumbered
with it: `schedule_session.version`, `schedule_version_content.version` and a rollback's
`rollback_of` in its recorded diff. `id` stays the global order servers poll; on SQLite the table
is rebuilt with AUTOINCREMENT so an id is never reused (without it, removing the newest versions
let the next ingest take their id again, and a server could miss the change).

Spelled out here rather than taken from server.store.tables, so this revision keeps meaning what
it means when later revisions change the tables.
"""

from __future__ import annotations

from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0007_version_numbers"
down_revision = "0006_pick_changes"
branch_labels = None
depends_on = None

_versions = sa.table(
    "schedule_version",
    sa.column("id", sa.Integer),
    sa.column("conference", sa.String),
    sa.column("number", sa.Integer),
    sa.column("diff", sa.JSON),
)
_sessions = sa.table("schedule_session", sa.column("conference", sa.String), sa.column("version", sa.Integer))
_content = sa.table("schedule_version_content", sa.column("conference", sa.String), sa.column("version", sa.Integer))


def upgrade() -> None:
    # A store stamped by no revision may be one this revision already converted (as the others,
    # this one meets whatever it finds).
    if "number" in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("schedule_version")}:
        return
    with op.batch_alter_table("schedule_version") as batch:
        batch.add_column(sa.Column("number", sa.Integer, nullable=True))
    conn = op.get_bind()
    numbers: dict[str, dict[int, int]] = defaultdict(dict)  # conference -> {old id: number}
    for version_id, conference in conn.execute(
        sa.select(_versions.c.id, _versions.c.conference).order_by(_versions.c.id)
    ):
        numbers[conference][version_id] = len(numbers[conference]) + 1
    for conference, renumbered in numbers.items():
        # In ascending order a row is moved down to a number no row still waiting holds: the
        # k-th version's old id is at least k.
        for old, new in sorted(renumbered.items()):
            conn.execute(sa.update(_versions).where(_versions.c.id == old).values(number=new))
            if old == new:
                continue
            for table in (_sessions, _content):
                conn.execute(
                    sa.update(table).where(table.c.conference == conference, table.c.version == old).values(version=new)
                )
    for version_id, conference, diff in conn.execute(
        sa.select(_versions.c.id, _versions.c.conference, _versions.c.diff)
    ):
        target = diff.get("rollback_of") if isinstance(diff, dict) else None
        if target is not None and target in numbers[conference]:
            changed = {**diff, "rollback_of": numbers[conference][target]}
            conn.execute(sa.update(_versions).where(_versions.c.id == version_id).values(diff=changed))
    with op.batch_alter_table(
        "schedule_version",
        recreate="always" if conn.dialect.name == "sqlite" else "auto",
        table_kwargs={"sqlite_autoincrement": True},
    ) as batch:
        batch.alter_column("number", existing_type=sa.Integer, nullable=False)
        batch.create_unique_constraint("uq_schedule_version_number", ["conference", "number"])


def downgrade() -> None:
    # `id` was kept, so every reference goes back to it exactly; in descending order a row moves
    # up to an id no row still waiting holds (the k-th version's id is at least k).
    conn = op.get_bind()
    found = conn.execute(sa.select(_versions.c.id, _versions.c.conference, _versions.c.number, _versions.c.diff))
    ids: dict[str, dict[int, int]] = defaultdict(dict)  # conference -> {number: id}
    for version_id, conference, number, diff in found.all():
        ids[conference][number] = version_id
    for conference, by_number in ids.items():
        for number, version_id in sorted(by_number.items(), reverse=True):
            if number == version_id:
                continue
            for table in (_sessions, _content):
                conn.execute(
                    sa.update(table)
                    .where(table.c.conference == conference, table.c.version == number)
                    .values(version=version_id)
                )
    for version_id, conference, diff in conn.execute(
        sa.select(_versions.c.id, _versions.c.conference, _versions.c.diff)
    ).all():
        target = diff.get("rollback_of") if isinstance(diff, dict) else None
        if target is not None and target in ids[conference]:
            changed = {**diff, "rollback_of": ids[conference][target]}
            conn.execute(sa.update(_versions).where(_versions.c.id == version_id).values(diff=changed))
    with op.batch_alter_table("schedule_version") as batch:
        batch.drop_constraint("uq_schedule_version_number", type_="unique")
        batch.drop_column("number")
