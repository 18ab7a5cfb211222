"""The schedule store: SQLAlchemy 2 Core, SQLite by default, PostgreSQL-ready.

`Store.open(url)`, `Store.ingest(schedule)`, `Store.live(slug)`, `Store.conferences()`,
`Store.version()`, `Store.changes()`; see store.py.
"""

from __future__ import annotations

from server.store.report import ConferenceSummary, Counts, IngestReport
from server.store.store import Store

__all__ = ["ConferenceSummary", "Counts", "IngestReport", "Store"]
