"""Pick sets on a real PostgreSQL server (conftest's pg_url): create, read, replace,
read notes and the expiry purge behave as on SQLite."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import delete

from server.store import Store, tables
from server.store.expiry import KEEP_AFTER_END
from server.store.picks import PickStore
from server.web.demo import seed_demo
from tests.helpers.store_builders import empty_postgres

MARCH = datetime(2026, 3, 1, tzinfo=UTC)
OVER = datetime(2026, 4, 7, 22, tzinfo=UTC)  # the demo conference's end


def test_pick_sets_on_postgres(pg_url: str) -> None:
    with Store.open(empty_postgres(pg_url)) as store:
        seed_demo(store)
        with store.engine.begin() as conn:
            conn.execute(delete(tables.picks))
        moments = iter([MARCH, MARCH, datetime(2026, 5, 1, tzinfo=UTC)])
        picks = PickStore(store.engine, clock=lambda: next(moments))
        (conference,) = [c.slug for c in store.conferences()]
        kept, dropped = picks.create(conference, ["a", "b"]), picks.create(conference, ["c"])

        replaced = picks.replace(kept.token, ["d"])
        picks.touch([kept.token, dropped.token], datetime(2026, 4, 1, 9, tzinfo=UTC))
        purged = picks.purge(OVER + KEEP_AFTER_END)

        assert replaced is not None and picks.get(kept.token) == replaced
        assert replaced.sessions == ("d",)
        assert replaced.updated == datetime(2026, 5, 1, tzinfo=UTC)
        assert purged == 1
        assert picks.get(dropped.token) is None
        with pytest.raises(StopIteration):
            next(moments)
