"""The calendar targets' table with a listing of every id, which only the tests read (the server
goes by token, by id or by what wants a sync)."""

from __future__ import annotations

from sqlalchemy import select

from server.store.caldav_targets import CaldavTargets
from server.store.tables import caldav_targets


class ListedTargets(CaldavTargets):
    def ids(self) -> list[int]:
        with self.engine.connect() as conn:
            return [r.id for r in conn.execute(select(caldav_targets.c.id).order_by(caldav_targets.c.id))]
