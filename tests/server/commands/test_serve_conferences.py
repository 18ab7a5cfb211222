"""`confcal serve --default SLUG` as a real process: the root paths serve the conference it names,
every conference stays under its own base, and a conference ingested while serving appears
without a restart."""

from __future__ import annotations

import dataclasses
import time
from datetime import date
from pathlib import Path

import httpx

from feeds.model import Conference
from server.store import Store
from server.web.demo import demo_schedule
from tests.helpers.serve_process import running_confcal

SECOND = Conference("Second Conf", "Europe/Berlin", date(2026, 6, 1), date(2026, 6, 2))
THIRD = Conference("Third Conf", "Europe/Lisbon", date(2026, 9, 1), date(2026, 9, 1))
DEMO = "pytorch-conference-europe-2026"


def test_serve_default_names_the_root_conference(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(demo_schedule())
        store.ingest(dataclasses.replace(demo_schedule(), conference=SECOND))

    with running_confcal(tmp_path, "--default", "second-conf", "--poll", "0.2") as server:
        root = httpx.get(f"{server.url}/feeds/all.ics").text
        demo = httpx.get(f"{server.url}/c/{DEMO}/feeds/all.ics").text
        with Store.open(server.db) as store:
            store.ingest(dataclasses.replace(demo_schedule(), conference=THIRD))
        for _ in range(300):  # the server polls every 0.2 s; not a timing assertion
            listed = httpx.get(f"{server.url}/api/conferences").json()["conferences"]
            if len(listed) == 3:
                break
            time.sleep(0.1)

    assert "X-WR-CALNAME:Second Conf" in root
    assert "X-WR-CALNAME:PyTorch Conference Europe 2026" in demo
    assert [c["url"] for c in listed] == [f"/c/{DEMO}/", "/c/second-conf/", "/c/third-conf/"]
