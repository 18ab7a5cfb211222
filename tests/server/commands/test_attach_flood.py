"""Calendar attaches that a calendar server keeps waiting hold the calendar-check threads only:
every other route of `confcal serve` keeps answering, and attaches past the limits are told when
to retry."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from server.caldav.target import ALLOW_PRIVATE_ENV
from server.web.context import ATTACHES_PER_CLIENT
from server.web.probe_pool import PROBE_WORKERS
from tests.helpers.drip_server import dripping_server
from tests.helpers.serve_process import running_confcal

FLOOD = 60
# Far longer than any of these routes takes on a busy machine, far shorter than the probes'
# deadline times the flood: a route queued behind the probes cannot answer within it.
OTHERS_TIMEOUT_S = 8.0


def test_a_flood_of_attaches_to_a_dripping_calendar_leaves_every_other_route_answering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")  # the dripping server is on loopback
    with (
        dripping_server() as calendar,
        running_confcal(tmp_path) as served,
        httpx.Client(base_url=served.url, timeout=30) as client,
    ):
        tokens = [client.post("/api/picks", json={"sessions": []}).json()["token"] for _ in range(FLOOD)]
        statuses: list[int] = []

        def attach(token: str) -> None:
            body = {"url": calendar.url, "username": "alice", "password": "secret"}
            statuses.append(client.post(f"/api/picks/{token}/caldav", json=body).status_code)

        flood = [threading.Thread(target=attach, args=(token,)) for token in tokens]
        for thread in flood:
            thread.start()
        for _ in range(300):  # until every check thread is held by the dripping server
            if len(calendar.accepted) >= PROBE_WORKERS:
                break
            time.sleep(0.1)
        others = {
            path: httpx.get(served.url + path, timeout=OTHERS_TIMEOUT_S).status_code
            for path in ("/healthz", "/", "/api/sessions", f"/p/{tokens[0]}.ics")
        }
        saved = httpx.put(f"{served.url}/api/picks/{tokens[1]}", json={"sessions": []}, timeout=OTHERS_TIMEOUT_S)
        for thread in flood:
            thread.join()

    assert others == {"/healthz": 200, "/": 200, "/api/sessions": 200, f"/p/{tokens[0]}.ics": 200}
    assert saved.status_code == 200
    assert len(calendar.accepted) == PROBE_WORKERS  # never more checks at once than the pool holds
    assert statuses.count(502) == PROBE_WORKERS  # the checks that ran ended at their deadline
    assert statuses.count(502) + statuses.count(503) in (ATTACHES_PER_CLIENT.burst, ATTACHES_PER_CLIENT.burst + 1)
    assert statuses.count(429) == FLOOD - statuses.count(502) - statuses.count(503)
