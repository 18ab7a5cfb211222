"""The schedule store: SQLAlchemy 2 Core, SQLite by default, PostgreSQL-ready.

`Store.open(url)`, `Store.ingest(schedule)`, `Store.live()`, `Store.version()`; see store.py.
"""

from __future__ import annotations

from server.store.report import Counts, IngestReport
from server.store.store import Store

__all__ = ["Counts", "IngestReport", "Store"]
