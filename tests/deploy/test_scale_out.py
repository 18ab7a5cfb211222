"""Scale-out as deploy/README.md describes it, with real processes: two `confcal serve` processes
(one of them with two workers) and two `confcal worker` processes on one Debian PostgreSQL, behind
Debian's nginx with deploy/nginx. Every feed has the same ETag from every server process and
through nginx; a job worker killed (SIGKILL) in the middle of a source refresh leaves that refresh
to the other worker, which finishes it once the lease has run out.

nginx also serves the source pages (a second server block), one of them slowly (`limit_rate`), so
the refresh is certainly in progress when its worker is killed."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from nginx_process import DEPLOY, running_nginx
from postgres_cluster import running_postgres
from serve_process import Running, confcal_command, free_port, running_confcal
from sqlalchemy import select

from feeds.demo import DEMO_DIR, DEMO_TZ
from server.cli import main
from server.store import Store
from server.store.sources import Outcome, Source, SourceStore
from server.store.tables import sources

BASE_URL = "https://cal.example.test"
# Longer than the slow refresh (~13 s at 1 KiB/s), so only a dead worker loses its claim.
LEASE_S = "20"


@dataclass(frozen=True)
class Cluster:
    db: str
    servers: tuple[Running, ...]
    proxy: str
    pages: str  # base URL of the source pages
    work: Path


def _site(upstreams: list[str], cache: Path, pages: Path, pages_port: int) -> str:
    servers = "".join(f"server {u.removeprefix('http://')}; " for u in upstreams)
    return f"""
    proxy_cache_path {cache} levels=1:2 keys_zone=confcal:10m max_size=100m inactive=10m use_temp_path=off;
    include {DEPLOY / "confcal-http.conf"};
    upstream confcal {{ {servers} keepalive 8; }}
    server {{
        listen 127.0.0.1:{{port}};
        server_name localhost;
        include {DEPLOY / "confcal-locations.conf"};
    }}
    server {{
        listen 127.0.0.1:{pages_port};
        location /pages/ {{ alias {pages}/; }}
        location /slow/ {{ alias {pages}/; limit_rate 1k; }}
    }}
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    pytest.importorskip("psycopg")
    work = tmp_path_factory.mktemp("scale-out")
    pages = work / "pages"
    shutil.copytree(DEMO_DIR, pages)
    with running_postgres() as url, ExitStack() as stack:
        assert main(["db", "upgrade", "--db", url]) == 0  # the explicit step on PostgreSQL
        assert main(["ingest", "--db", url, "--tz", DEMO_TZ, str(DEMO_DIR)]) == 0
        servers = []
        for name, workers in (("a", "2"), ("b", "1")):
            (work / name).mkdir()
            options = ["--no-jobs", "--base-url", BASE_URL, "--workers", workers, "--poll", "0.5"]
            servers.append(stack.enter_context(running_confcal(work / name, *options, db=url)))
        pages_port = free_port()
        site = _site([s.url for s in servers], work / "cache", pages, pages_port)
        proxy = stack.enter_context(running_nginx(work / "nginx", site))
        yield Cluster(url, tuple(servers), proxy, f"http://127.0.0.1:{pages_port}", work)


def test_every_feed_has_the_same_etag_from_every_server_and_through_nginx(cluster: Cluster) -> None:
    feeds = [f["url"] for f in httpx.get(cluster.proxy + "/api/feeds").json()["feeds"]]
    assert len(feeds) > 10
    # Server a twice (two workers behind one port; new connections), b once, nginx once.
    bases = [cluster.servers[0].url, cluster.servers[0].url, cluster.servers[1].url, cluster.proxy]

    etags = {
        url: {httpx.get(base + url.removeprefix(BASE_URL)).headers["etag"] for base in bases} for url in feeds
    }

    assert {url: len(tags) for url, tags in etags.items()} == {url: 1 for url in feeds}
    assert len({next(iter(tags)) for tags in etags.values()}) == len(feeds)


def _worker(db: str, log: Path) -> subprocess.Popen[bytes]:
    command = [*confcal_command(), "worker", "--db", db, "--threads", "1", "--refresh-lease", LEASE_S]
    with log.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)


def _wait_for(condition: Callable[[], bool]) -> bool:
    for _ in range(1800):  # bounded (~3 min: the sweep runs once a minute); not a timing assertion
        if condition():
            return True
        time.sleep(0.1)
    return False


def _leased(db: str) -> bool:
    with Store.open(db) as store, store.engine.connect() as conn:
        return conn.execute(select(sources.c.lease_until)).scalar_one() is not None


def _source(db: str) -> Source:
    with Store.open(db) as store:
        (source,) = SourceStore(store.engine).all()
    return source


def test_a_killed_workers_refresh_is_finished_by_the_other(cluster: Cluster) -> None:
    names = sorted(p.name for p in DEMO_DIR.iterdir())
    # The first page comes slowly (tens of seconds), the others at once.
    urls = [f"{cluster.pages}/slow/{names[0]}", *(f"{cluster.pages}/pages/{n}" for n in names[1:])]
    logs = [cluster.work / "worker1.log", cluster.work / "worker2.log"]
    workers = [_worker(cluster.db, log) for log in logs]
    try:
        add = ["source", "add", *urls, "--every", "1h", "--tz", DEMO_TZ, "--allow-private", "--db", cluster.db]
        assert main(add) == 0
        started = "Executing server.jobs.tasks.refresh_source"
        assert _wait_for(lambda: _leased(cluster.db) and any(started in log.read_text() for log in logs))
        (holder,) = [i for i, log in enumerate(logs) if started in log.read_text()]
        workers[holder].send_signal(signal.SIGKILL)
        workers[holder].wait(timeout=30)
        other = 1 - holder

        finished = _wait_for(lambda: _source(cluster.db).generation == 1)
        source = _source(cluster.db)
    finally:
        for process in workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=60)

    assert finished
    assert source.result in (Outcome.OK, Outcome.UNCHANGED)
    assert f"source {source.id}: {source.result.value}" in logs[other].read_text()
    assert f"source {source.id}: " not in logs[holder].read_text()
