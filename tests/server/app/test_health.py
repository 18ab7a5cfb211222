"""`/healthz`: 200 with the store's version and the sources' freshness, 503 when the store cannot
be read; never cached."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from server.store import Store
from server.store.sources import Finished, Outcome, SourceSpec, SourceStore
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http


def test_a_readable_store_is_healthy(store: Store, demo_schedule: object) -> None:
    store.ingest(demo_schedule)  # type: ignore[arg-type]
    http = Http(create_app(store, clock=lambda: NOW))

    reply = http.get("/healthz")

    assert reply.status == 200
    assert reply.headers["cache-control"] == "no-store"
    doc = reply.json_doc()
    assert (doc["status"], doc["store"], doc["sources"]) == (
        "ok",
        {"ok": True, "version": 1},
        {"count": 0, "last_refresh_age_seconds": None, "overdue": 0},
    )
    assert isinstance(doc["pid"], int)


def test_the_age_of_the_newest_source_refresh_is_reported(store: Store) -> None:
    sources = SourceStore(store.engine)
    added = sources.add(SourceSpec(("https://example.org/a.ics",), timedelta(hours=1)), NOW - timedelta(hours=2))
    claimed = sources.claim(added.id, added.generation, NOW - timedelta(minutes=3), timedelta(minutes=1))
    assert claimed is not None
    sources.finish(claimed, Finished(Outcome.UNCHANGED, "304"), NOW - timedelta(minutes=3))
    sources.add(SourceSpec(("https://example.org/b.ics",), timedelta(hours=1)), NOW - timedelta(hours=1))
    http = Http(create_app(store, clock=lambda: NOW))

    doc = http.get("/healthz").json_doc()

    # b was due an hour ago and never fetched: overdue; a was fetched three minutes ago.
    assert doc["sources"] == {"count": 2, "last_refresh_age_seconds": 180.0, "overdue": 1}


def test_an_unreadable_store_is_503(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store.open(str(path))
    http = Http(create_app(store, clock=lambda: NOW))
    store.engine.dispose()
    path.write_bytes(b"this is not a database file" * 200)

    reply = http.get("/healthz")

    assert reply.status == 503
    assert reply.headers["cache-control"] == "no-store"
    doc = reply.json_doc()
    assert (doc["status"], doc["store"]["ok"]) == ("unavailable", False)
    assert doc["store"]["error"].startswith("cannot read store")
    store.close()
