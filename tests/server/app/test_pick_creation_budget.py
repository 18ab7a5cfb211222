"""Only pick sets that were created count against a client's creation budget."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import create_engine

from server.store import Store
from server.store.picks import PickStore
from server.web.app import create_app
from server.web.demo import seed_demo
from server.web.guards import Guards
from server.web.ratelimit import Rate, TokenBuckets
from tests.helpers.app_helpers import NOW, send

EMPTY = b'{"sessions": []}'


def test_creations_the_store_refused_leave_the_budget_whole(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store.open(str(path))
    seed_demo(store)
    picks = PickStore(create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.2}))
    app = create_app(store, clock=lambda: NOW, picks=picks, guards=Guards(pick_rate=Rate(burst=2, per_hour=1)))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the store cannot be written, as on a full disk
    try:
        refused = [send(app, "POST", "/api/picks", EMPTY).status for _ in range(3)]
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    after = [send(app, "POST", "/api/picks", EMPTY).status for _ in range(3)]

    assert refused == [503, 503, 503]
    assert after == [201, 201, 429]


def test_a_token_given_back_never_lifts_a_bucket_past_its_burst() -> None:
    buckets = TokenBuckets(Rate(burst=2, per_hour=1))

    buckets.give_back("a", 0.0)
    taken = [buckets.take("a", 0.0) for _ in range(3)]

    assert taken[:2] == [None, None]
    assert taken[2] is not None
