"""How often calendar checks may be asked for, and the threads they run on."""

from __future__ import annotations

import threading

import anyio
import anyio.to_thread
import pytest

from server.caldav.target import ALLOW_PRIVATE_ENV
from server.store import Store
from server.web.app import create_app
from server.web.context import ATTACHES_PER_PICKSET
from server.web.probe_pool import PoolBusy, ProbePool
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.caldav_helpers import send_json
from tests.helpers.serve_process import free_port


def test_one_pick_set_may_ask_for_a_few_checks_then_is_told_when_to_retry(
    db: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")
    http = Http(create_app(db, clock=lambda: NOW))
    token = send_json(http, "POST", "/api/picks", {"sessions": []}).json_doc()["token"]
    nobody = {"url": f"http://127.0.0.1:{free_port()}/cal/", "username": "a", "password": "b"}
    burst = int(ATTACHES_PER_PICKSET.burst)  # a Rate's burst is a float; each check takes a whole token

    replies = [send_json(http, "POST", f"/api/picks/{token}/caldav", nobody) for _ in range(burst + 1)]

    assert [r.status for r in replies] == [502] * burst + [429]
    assert int(replies[-1].headers["retry-after"]) >= 1
    assert replies[-1].json_doc() == {
        "error": f"too many calendar checks asked for; try again in {replies[-1].headers['retry-after']} s"
    }


def test_a_check_finding_every_thread_busy_is_refused_at_once() -> None:
    pool = ProbePool(workers=1)
    started, release = threading.Event(), threading.Event()
    outcome: list[str] = []

    def held() -> None:
        started.set()
        release.wait()

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(pool.run, held)
            await anyio.to_thread.run_sync(started.wait)
            try:
                await pool.run(lambda: "ran")
            except PoolBusy:
                outcome.append("busy")
            release.set()
        outcome.append(await pool.run(lambda: "ran"))

    anyio.run(main)

    assert outcome == ["busy", "ran"]
