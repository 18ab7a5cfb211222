"""Saving picks while an ingest writes the next version of a 20,000-session conference:
every create and replace succeeds and every pick set reads back exactly.

The store is a real SQLite file holding the demo conference (whose sessions are picked) and a
generated 20,000-session conference. The ingest runs the Store API in a thread on its own
engine, as `confcal ingest` would in its own process, rewriting every row of the big
conference (each session moves room) while this thread sends picks through the real app.
SQLAlchemy events on the ingest's engine mark when its write transaction held the lock, so the
test also shows that requests overlapped it; before the fix the lock was held for the whole
ingest and requests failed with 500 after SQLite's 5 s busy timeout.
"""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event

from feeds.pipeline import load_schedule
from server.store import Store
from server.web.app import create_app
from server.web.demo import seed_demo
from server.web.guards import Guards
from server.web.ratelimit import Rate
from tests.helpers.app_helpers import NOW, Reply, send
from tests.helpers.sched_pages import write_page

SESSIONS = 20_000
ZONE = "Europe/Paris"


class WriteWindow:
    """When the ingest's engine started writing (its first write statement takes SQLite's
    write lock) and when it committed, on the monotonic clock."""

    def __init__(self, store: Store) -> None:
        self.start: float | None = None
        self.end: float | None = None
        event.listen(store.engine, "before_cursor_execute", self._statement)
        event.listen(store.engine, "commit", self._commit)

    def _statement(self, conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if self.start is None and statement.lstrip().upper().startswith(("UPDATE", "INSERT")):
            self.start = time.monotonic()

    def _commit(self, conn: Any) -> None:
        if self.start is not None and self.end is None:
            self.end = time.monotonic()


def test_picks_are_saved_while_an_ingest_writes_20000_sessions(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    first, second = tmp_path / "v1.txt", tmp_path / "v2.txt"
    write_page(first, SESSIONS, edition=0)
    write_page(second, SESSIONS, edition=1)  # every session in another room: 20,000 updates
    store = Store.open(db)
    seed_demo(store)
    # No creation limit here: this test sends as many requests as the ingest leaves time for.
    unlimited = Guards(pick_rate=Rate(burst=1_000_000, per_hour=1_000_000))
    app = create_app(store, clock=lambda: NOW, guards=unlimited)
    demo_ids = [s["id"] for s in json.loads(send(app, "GET", "/api/sessions", b"").content)["sessions"]]
    store.ingest(load_schedule([str(first)], ZONE).schedule)  # the big conference, version 2
    next_version = load_schedule([str(second)], ZONE).schedule
    ingesting = Store.open(db)
    window = WriteWindow(ingesting)
    failures: list[BaseException] = []

    def ingest() -> None:
        try:
            ingesting.ingest(next_version)
        except BaseException as exc:  # reported by the assertions below
            failures.append(exc)

    expected: dict[str, list[str]] = {}
    replies: list[tuple[str, int, float, float]] = []

    def save(method: str, path: str, ids: list[str]) -> Reply:
        started = time.monotonic()
        reply = send(app, method, path, json.dumps({"sessions": ids}).encode())
        replies.append((method, reply.status, started, time.monotonic()))
        return reply

    def client(seed: int, method: str) -> None:
        # Several clients at once, as from several browsers: each one blocked by the ingest's
        # write lock shows that its kind of request waited it out. Each owns its own sets.
        rng = random.Random(seed)
        mine: dict[str, list[str]] = {}
        while writer.is_alive() or not mine:
            ids = rng.sample(demo_ids, rng.randint(0, 6))
            if method == "PUT" and mine:
                token = rng.choice(sorted(mine))
                if save("PUT", f"/api/picks/{token}", ids).status == 200:
                    mine[token] = ids
            else:
                reply = save("POST", "/api/picks", ids)
                if reply.status == 201:
                    mine[reply.json_doc()["token"]] = ids
        expected.update(mine)

    writer = threading.Thread(target=ingest)
    clients = [threading.Thread(target=client, args=(n, m)) for n, m in enumerate(["POST", "PUT"] * 2)]
    writer.start()
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    writer.join()
    ingesting.close()

    assert failures == []
    assert [r for r in replies if r[1] not in (200, 201)] == []
    assert window.start is not None and window.end is not None
    overlapping = {m for m, _, began, ended in replies if began < window.end and ended > window.start}
    assert overlapping == {"POST", "PUT"}
    assert store.version() == 3
    stored = {token: send(app, "GET", f"/api/picks/{token}", b"").json_doc()["sessions"] for token in expected}
    store.close()
    assert stored == expected
