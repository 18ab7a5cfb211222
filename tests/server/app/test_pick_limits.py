"""Limits on pick sets through the real app: creation rate per client (429 + Retry-After), a
locked store (503 + Retry-After, never 500), and reads noted for expiry."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from starlette.applications import Starlette

from server.store import Store
from server.store.picks import PickStore
from server.web.app import create_app
from server.web.demo import seed_demo
from server.web.guards import Guards
from server.web.pick_upkeep import PickUpkeep
from server.web.ratelimit import Rate, TokenBuckets, client_key
from tests.helpers.app_helpers import NOW, send

EMPTY = b'{"sessions": []}'


def app_with(store: Store, **guards: object) -> Starlette:
    return create_app(store, clock=lambda: NOW, guards=Guards(**guards))  # type: ignore[arg-type]


@pytest.fixture
def demo(tmp_path: Path) -> Store:
    opened = Store.open(str(tmp_path / "store.sqlite"))
    seed_demo(opened)
    return opened


def test_creation_past_the_burst_is_429_with_retry_after(demo: Store) -> None:
    app = app_with(demo, pick_rate=Rate(burst=3, per_hour=60))

    statuses = [send(app, "POST", "/api/picks", EMPTY).status for _ in range(3)]
    refused = send(app, "POST", "/api/picks", EMPTY)

    assert statuses == [201, 201, 201]
    assert refused.status == 429
    assert refused.headers["content-type"] == "application/json"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.json_doc() == {
        "error": f"too many pick sets created from your address; try again in {refused.headers['retry-after']} s"
    }


def test_reading_and_replacing_are_not_limited(demo: Store) -> None:
    app = app_with(demo, pick_rate=Rate(burst=1, per_hour=1))
    token = send(app, "POST", "/api/picks", EMPTY).json_doc()["token"]

    replies = [send(app, "PUT", f"/api/picks/{token}", EMPTY).status for _ in range(5)]
    replies += [send(app, "GET", f"/api/picks/{token}", b"").status for _ in range(5)]

    assert replies == [200] * 10
    assert send(app, "POST", "/api/picks", EMPTY).status == 429


def test_a_refused_body_does_not_spend_the_budget(demo: Store) -> None:
    app = app_with(demo, pick_rate=Rate(burst=1, per_hour=1))

    bad = [send(app, "POST", "/api/picks", b"{nope").status for _ in range(3)]

    assert bad == [400, 400, 400]
    assert send(app, "POST", "/api/picks", EMPTY).status == 201


def test_buckets_refill_at_the_rate_and_stop_at_the_burst() -> None:
    buckets = TokenBuckets(Rate(burst=2, per_hour=3600))  # one token a second

    taken = [buckets.take("a", 0.0), buckets.take("a", 0.0), buckets.take("a", 0.0)]
    later = buckets.take("a", 1.0)
    after_a_long_while = [buckets.take("a", 1000.0) for _ in range(3)]

    assert taken == [None, None, 1.0]
    assert later is None
    assert after_a_long_while == [None, None, 1.0]
    assert buckets.take("b", 0.0) is None  # another client has its own bucket


def test_buckets_stay_bounded_under_many_clients() -> None:
    buckets = TokenBuckets(Rate(burst=1, per_hour=1), max_clients=100)

    for n in range(1000):
        buckets.take(f"10.0.{n // 256}.{n % 256}", float(n))

    assert len(buckets) <= 100


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("203.0.113.9", "203.0.113.9"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.9", "203.0.113.9"),
        (None, "unknown"),
    ],
)
def test_ipv6_clients_count_per_64(address: str | None, key: str) -> None:
    assert client_key(address) == key


def test_a_locked_store_answers_503_with_retry_after_and_no_500(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store.open(str(path))
    seed_demo(store)
    picks = PickStore(create_engine(f"sqlite:///{path}", connect_args={"timeout": 0.2}))
    app = create_app(store, clock=lambda: NOW, picks=picks)
    token = send(app, "POST", "/api/picks", EMPTY).json_doc()["token"]
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # as an ingest holds it while it writes
    try:
        created = send(app, "POST", "/api/picks", EMPTY)
        replaced = send(app, "PUT", f"/api/picks/{token}", EMPTY)
        read = send(app, "GET", f"/api/picks/{token}", b"")
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    for reply in (created, replaced):
        assert reply.status == 503
        assert reply.headers["retry-after"] == "5"
        assert reply.json_doc() == {"error": "pick sets cannot be saved right now; try again shortly"}
    assert read.status == 200  # WAL: reads go on while a writer holds the lock
    assert send(app, "POST", "/api/picks", EMPTY).status == 201  # and writes once it is gone


def test_reads_are_noted_and_written_by_the_upkeep_round(demo: Store) -> None:
    app = create_app(demo, clock=lambda: datetime(2026, 6, 1, 12, tzinfo=UTC))
    created = [send(app, "POST", "/api/picks", EMPTY).json_doc()["token"] for _ in range(4)]
    feed, qr, document, unread = created
    send(app, "GET", f"/p/{feed}.ics", b"")
    send(app, "GET", f"/p/{qr}.svg", b"")
    send(app, "GET", f"/api/picks/{document}", b"")
    upkeep: PickUpkeep = app.state.upkeep

    pending = upkeep.take_pending()
    purged = upkeep.run_once(pending)

    with demo.engine.connect() as conn:
        stored: dict[str, object] = dict(conn.exec_driver_sql("SELECT token, last_access FROM personal_picks").all())
    assert pending == {feed, qr, document}
    assert purged == 0  # the demo ended on 7 April: nothing is 90 days past it yet
    assert {t for t, day in stored.items() if day is not None} == {feed, qr, document}
    assert stored[unread] is None
