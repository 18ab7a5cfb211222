"""The schedule store: SQLAlchemy 2 Core, SQLite by default, PostgreSQL-ready.

`Store.open(url)`, `Store.ingest(schedule)`, `Store.live(slug)`, `Store.conferences()`,
`Store.version()`, `Store.changes()`; see store.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.lazy import exports

if TYPE_CHECKING:
    from server.store.report import ConferenceSummary, Counts, IngestReport
    from server.store.store import Store

__all__ = ["ConferenceSummary", "Counts", "IngestReport", "Store"]

# Loaded on first use (PEP 562): they bring SQLAlchemy, and a command checks its store file
# (server.store.integrity, a module of this package) while SQLAlchemy loads.
_HOME = {
    "ConferenceSummary": "server.store.report",
    "Counts": "server.store.report",
    "IngestReport": "server.store.report",
    "Store": "server.store.store",
}


__getattr__ = exports(__name__, _HOME)
