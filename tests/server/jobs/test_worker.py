"""`confcal worker` as real processes: beside `confcal serve --no-jobs` on SQLite, and two of them
sharing one real PostgreSQL store, where each refresh of a source runs exactly once."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

from feeds.demo import DEMO_TZ
from server.cli import main
from server.store import Store
from server.store.sources import SourceStore
from tests.helpers.postgres_cluster import running_postgres
from tests.helpers.serve_process import confcal_command, running_confcal
from tests.helpers.source_server import CHANGED_PAGE, PageServer

CHANGED_TITLE = "Parameterized CUDA Graph Launch in PyTorch: CUDA Graphs Without Any Pain"


@contextmanager
def running_worker(db: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("wb") as out:
        process = subprocess.Popen([*confcal_command(), "worker", "--db", db], stdout=out, stderr=subprocess.STDOUT)
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=60)


def wait_for(condition: Callable[[], bool]) -> bool:
    for _ in range(600):  # bounded wait (~60 s on a busy machine); not a timing assertion
        if condition():
            return True
        time.sleep(0.1)
    return False


def generation(db: str) -> int:
    with Store.open(db) as store:
        (source,) = SourceStore(store.engine).all()
    return source.generation


def test_worker_refreshes_for_a_server_that_runs_no_jobs(
    tmp_path: Path, pages: PageServer, demo_urls: list[str]
) -> None:
    with running_confcal(tmp_path, "--poll", "0.5", "--no-jobs") as server:
        main(["source", "add", *demo_urls, "--every", "2s", "--tz", DEMO_TZ, "--allow-private", "--db", server.db])
        pages.put("/002_f0fe97cd188ad8b4.txt", CHANGED_PAGE.read_bytes())
        time.sleep(3)  # more than one interval: a server running jobs would have fetched by now
        fetched_by_server = pages.count(200)

        with running_worker(server.db, tmp_path / "worker.log") as worker:
            shown = wait_for(
                lambda: (
                    CHANGED_TITLE in {s["title"] for s in httpx.get(server.url + "/api/sessions").json()["sessions"]}
                )
            )
            code = stop(worker)

    assert fetched_by_server == 0
    assert shown
    assert code == 0


def test_two_workers_on_postgres_refresh_each_run_once(tmp_path: Path, pages: PageServer, demo_urls: list[str]) -> None:
    with running_postgres() as url, ExitStack() as workers:
        main(["db", "upgrade", "--db", url])
        main(["source", "add", *demo_urls, "--every", "1s", "--tz", DEMO_TZ, "--allow-private", "--db", url])
        started = [workers.enter_context(running_worker(url, tmp_path / f"worker{i}.log")) for i in (1, 2)]

        assert wait_for(lambda: generation(url) >= 5)
        codes = [stop(worker) for worker in started]
        runs = generation(url)

    assert codes == [0, 0]
    # Each run fetched the five pages once: in full the first time, then answered 304.
    assert (pages.count(200), pages.count(304)) == (5, 5 * (runs - 1))
