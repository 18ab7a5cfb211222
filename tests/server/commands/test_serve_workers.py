"""`confcal serve --workers N`: N processes answer on one port, each with its own app over the one
store; and the demo is seeded only when asked, or into an empty SQLite store with no sources."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from server.commands.serve import MMAP_THRESHOLD_ENV
from server.store import Store
from server.store.sources import SourceSpec, SourceStore
from tests.helpers.serve_process import running_confcal


def _pids_answering(url: str) -> set[int]:
    pids: set[int] = set()
    for _ in range(200):  # fresh connections until both processes answered; bounded
        pids.add(httpx.get(url + "/healthz").json()["pid"])
        if len(pids) == 2:
            break
    return pids


def test_two_workers_both_serve_the_same_feed(tmp_path: Path) -> None:
    with running_confcal(tmp_path, "--workers", "2", ready="/feeds/all.ics") as server:
        pids = _pids_answering(server.url)
        etags = {httpx.get(server.url + "/feeds/all.ics").headers["etag"] for _ in range(20)}
        metrics = httpx.get(server.url + "/metrics").text

    assert len(pids) == 2
    assert len(etags) == 1
    # Either process's /metrics adds up both (one folder of multiprocess files).
    assert {f'confcal_process_requests_total{{pid="{pid}"}}' in metrics for pid in pids} == {True}


def test_an_empty_sqlite_store_gets_the_demo_by_default(tmp_path: Path) -> None:
    with running_confcal(tmp_path, ready="/healthz") as server:
        conferences = httpx.get(server.url + "/api/conferences").json()["conferences"]

    assert [c["slug"] for c in conferences] == ["pytorch-conference-europe-2026"]


def test_no_demo_leaves_the_store_empty(tmp_path: Path) -> None:
    with running_confcal(tmp_path, "--no-demo", ready="/healthz") as server:
        feed = httpx.get(server.url + "/feeds/all.ics")
        version = httpx.get(server.url + "/healthz").json()["store"]["version"]

    assert (feed.status_code, version) == (503, 0)


def test_a_store_with_sources_gets_no_demo_unless_asked(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    with Store.open(db) as store:
        # Due in a day: nothing is fetched during the test.
        later = datetime.now(UTC) + timedelta(days=1)
        SourceStore(store.engine).add(SourceSpec(("https://example.org/s.ics",), timedelta(days=1)), later)

    with running_confcal(tmp_path, "--no-jobs", db=db, ready="/healthz") as server:
        without = httpx.get(server.url + "/healthz").json()["store"]["version"]
    with running_confcal(tmp_path, "--no-jobs", "--demo", db=db, ready="/healthz") as server:
        asked = httpx.get(server.url + "/healthz").json()["store"]["version"]

    assert (without, asked) == (0, 1)


def test_settings_come_from_a_toml_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "confcal.toml"
    config.write_text('workers = 2\ndemo = false\nlog_format = "json"\n', encoding="utf-8")
    monkeypatch.setenv("CONFCAL_CONFIG", str(config))

    with running_confcal(tmp_path, ready="/healthz") as server:
        version = httpx.get(server.url + "/healthz").json()["store"]["version"]
        pids = _pids_answering(server.url)
    lines = [json.loads(line) for line in (tmp_path / "serve.log").read_text().splitlines()]

    assert (version, len(pids)) == (0, 2)
    access = [line for line in lines if line["logger"] == "confcal.access"]
    assert {(a["path"], a["route"], a["status"]) for a in access} == {("/healthz", "/healthz", 200)}


def _environment(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def test_each_worker_starts_with_the_allocators_mmap_threshold_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """So a freed feed's bytes go back to the system (serve.py says why)."""
    monkeypatch.delenv(MMAP_THRESHOLD_ENV, raising=False)
    with running_confcal(tmp_path, "--workers", "2", ready="/healthz") as server:
        pids = _pids_answering(server.url)
        environments = [_environment(pid) for pid in pids]

    assert len(pids) == 2
    assert [b"MALLOC_MMAP_THRESHOLD_=131072" in found for found in environments] == [True, True]


def test_an_mmap_threshold_the_operator_set_stands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MMAP_THRESHOLD_ENV, "65536")
    with running_confcal(tmp_path, ready="/healthz") as server:
        found = _environment(httpx.get(server.url + "/healthz").json()["pid"])

    assert [line for line in found if line.startswith(b"MALLOC_MMAP_THRESHOLD_=")] == [b"MALLOC_MMAP_THRESHOLD_=65536"]
