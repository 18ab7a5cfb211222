"""Every row of a store as plain JSON, read by reflection, so a store made by an older confcal and the
same store after `confcal db upgrade` can be compared whatever the code's tables say now.

Instants are written as UTC to the second (`2026-03-01T09:00:00Z`) however they are stored (naive
UTC, aware, text): an upgrade may change how a time is stored, never which instant it is.
Used by tests/fixtures/store/make_pre_migration_store.py too, which runs it on old code.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Engine, MetaData, select

# Tables that are bookkeeping, not data: the schema revision itself.
SKIPPED = {"alembic_version"}
_TEXT_TIME = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")


def instant(value: datetime) -> str:
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return instant(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and _TEXT_TIME.fullmatch(value):
        return instant(datetime.fromisoformat(value.replace("Z", "+00:00")))
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    raise TypeError(f"cannot snapshot {type(value).__name__}")


def snapshot(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    """{table: [row, ...]} for every table but the revision's, rows in primary-key order."""
    meta = MetaData()
    meta.reflect(engine)
    found: dict[str, list[dict[str, Any]]] = {}
    with engine.connect() as conn:
        for name in sorted(meta.tables):
            if name in SKIPPED:
                continue
            table = meta.tables[name]
            order = list(table.primary_key.columns) or list(table.columns)
            rows = conn.execute(select(table).order_by(*order)).mappings()
            found[name] = [{key: plain(value) for key, value in row.items()} for row in rows]
    return found
