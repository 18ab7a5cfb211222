"""Source credentials kept encrypted: `schedule_source_credentials`, one Fernet token (server.crypto)
per source holding what the source's host asks for. A source registered with a `user:password@`
URL had its password in `schedule_source.urls` as text; it moves into the token here and leaves
the URLs.

Spelled out here rather than taken from server.store.tables, so this revision keeps meaning what
it means when later revisions change the tables.
"""

from __future__ import annotations

import json
from urllib.parse import unquote, urlsplit, urlunsplit

import sqlalchemy as sa
from alembic import op

revision = "0008_source_credentials"
down_revision = "0007_version_numbers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if "schedule_source_credentials" not in sa.inspect(bind).get_table_names():
        op.create_table(
            "schedule_source_credentials",
            sa.Column("source_id", sa.Integer, primary_key=True, autoincrement=False),
            sa.Column("sealed", sa.Text, nullable=False),
        )
    sources = sa.table("schedule_source", sa.column("id", sa.Integer), sa.column("urls", sa.JSON))
    credentials = sa.table(
        "schedule_source_credentials", sa.column("source_id", sa.Integer), sa.column("sealed", sa.Text)
    )
    rows = [(row.id, list(row.urls)) for row in bind.execute(sa.select(sources.c.id, sources.c.urls))]
    with_userinfo = [(key, urls) for key, urls in rows if any("@" in urlsplit(u).netloc for u in urls)]
    if not with_userinfo:
        return
    # The key is needed only when there is a password to move (server.crypto finds or makes it).
    from server.crypto import Password, key_for

    cipher = key_for(bind.engine)
    for key, urls in with_userinfo:
        first = next(urlsplit(u) for u in urls if "@" in urlsplit(u).netloc)
        login = {"username": unquote(first.username or ""), "password": unquote(first.password or ""), "headers": []}
        bare = [urlunsplit(urlsplit(u)._replace(netloc=urlsplit(u).netloc.rpartition("@")[2])) for u in urls]
        bind.execute(sa.update(sources).where(sources.c.id == key).values(urls=bare))
        bind.execute(sa.delete(credentials).where(credentials.c.source_id == key))
        bind.execute(sa.insert(credentials).values(source_id=key, sealed=cipher.encrypt(Password(json.dumps(login)))))


def downgrade() -> None:
    op.drop_table("schedule_source_credentials")
