"""Scale-out as deploy/README.md describes it, with real processes: two `confcal serve` processes
(one of them with two workers) and two `confcal worker` processes on one Debian PostgreSQL, behind
Debian's nginx with deploy/nginx. Every feed has the same ETag from every server process and
through nginx; a job worker killed (SIGKILL) in the middle of a source refresh leaves that refresh
to the other worker, which finishes it once the lease has run out.

CalDAV sync on the same cluster: calendars on a real Radicale (behind the counting proxy,
tests/helpers/dav_proxy.py), attached through the attach API via nginx, get each change written once by
two job workers, though every sync job is queued twice; a job worker killed (SIGKILL) mid-sync,
after it stored an event and before it heard the answer, leaves the calendar to the other worker,
which finishes it without writing anything twice.

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
from sqlalchemy import select

from feeds.demo import DEMO_DIR, DEMO_TZ
from server.cli import main
from server.crypto import new_key
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.sources import Outcome, Source, SourceStore
from server.store.tables import caldav_targets, sources
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.demo_changes import MOVED_TITLE, OTHER_TITLES, moved_pages
from tests.helpers.nginx_process import DEPLOY, running_nginx
from tests.helpers.postgres_cluster import running_postgres
from tests.helpers.push_helpers import PASSWORD, USER, DavServer, uid_counts
from tests.helpers.serve_process import Running, confcal_command, free_port, running_confcal, running_worker
from tests.helpers.sync_helpers import bodies, calendar, queue_syncs, start_of_title, synced

BASE_URL = "https://cal.example.test"
# Longer than the slow refresh (~13 s at 1 KiB/s), so only a dead worker loses its claim.
LEASE_S = "20"
# A CalDAV sync renews its lease every third of it, so a short one is safe for a live worker and
# lets the other take a dead worker's calendar soon.
SYNC_LEASE_S = "6"


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
    proxy_cache_path {cache}-personal levels=1:2 keys_zone=confcal_personal:1m max_size=10m inactive=1m use_temp_path=off;
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
    with running_postgres() as url, ExitStack() as stack, pytest.MonkeyPatch.context() as env:
        # Inherited by every serve and worker: the calendars are on loopback, and a PostgreSQL
        # store keeps the key for stored calendar passwords in the environment.
        env.setenv("CONFCAL_CALDAV_ALLOW_PRIVATE", "1")
        env.setenv("CONFCAL_SECRET_KEY", new_key())
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

    etags = {url: {httpx.get(base + url.removeprefix(BASE_URL)).headers["etag"] for base in bases} for url in feeds}

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


def _attach(cluster: Cluster, server: DavServer, proxy: DavProxy, sessions: list[str]) -> tuple[int, str]:
    """A pick set of `sessions` made, and a new calendar attached to it, through nginx, as a
    visitor's page does: the target's id and the calendar's own URL (to read it past the proxy)."""
    created = httpx.post(cluster.proxy + "/api/picks", json={"sessions": sessions})
    assert created.status_code == 201
    token = created.json()["token"]
    url = server.new_calendar()
    proxied = url.replace(f"http://127.0.0.1:{server.port}", proxy.base)
    attached = httpx.post(
        cluster.proxy + f"/api/picks/{token}/caldav",
        json={"url": proxied, "username": USER, "password": PASSWORD},
        timeout=60,
    )
    assert attached.status_code == 201
    with Store.open(cluster.db) as store:
        found = CaldavTargets(store.engine).by_token(token)
    assert found is not None
    return found.id, url


def _ids_by_title(cluster: Cluster) -> dict[str, str]:
    sessions = httpx.get(cluster.proxy + "/api/sessions").json()["sessions"]
    return {s["title"]: s["id"] for s in sessions}


def _sync_runs(logs: list[Path], target: int) -> int:
    """Sync runs of `target` the job workers logged (one line each, finished or failed)."""
    return sum(log.read_text().count(f"caldav sync target={target} ") for log in logs)


@pytest.fixture
def dav_proxy(radicale: DavServer) -> Iterator[DavProxy]:
    with DavProxy(radicale.port) as running:
        yield running


def test_calendars_attached_through_nginx_get_each_change_written_once(
    cluster: Cluster, radicale: DavServer, dav_proxy: DavProxy
) -> None:
    ids = _ids_by_title(cluster)
    attached = [_attach(cluster, radicale, dav_proxy, [ids[MOVED_TITLE], ids[OTHER_TITLES[0]]]) for _ in range(4)]
    targets = [target for target, _ in attached]
    logs = [cluster.work / f"sync{i}.log" for i in (1, 2)]
    options = ("--threads", "2", "--sync-lease", SYNC_LEASE_S)

    with ExitStack() as stack:
        for log in logs:
            stack.enter_context(running_worker(cluster.db, log, *options))
        queue_syncs(cluster.db, targets)  # each target's job a second time, as a sweep racing it would
        first = _wait_for(lambda: synced(cluster.db, targets))
        ingest = ["ingest", "--tz", DEMO_TZ, str(moved_pages(cluster.work / "moved")), "--db", cluster.db]
        assert main(ingest) == 0  # queues a sync of every calendar holding the moved session
        queue_syncs(cluster.db, targets)
        second = _wait_for(lambda: synced(cluster.db, targets) and all(len(calendar(url)) == 2 for _, url in attached))
        moved = [start_of_title(url, MOVED_TITLE).hour for _, url in attached]

    assert first and second
    assert moved == [11] * 4  # 13:00 CEST
    writes = dav_proxy.writes()
    assert len(writes) == 8  # two events in each of four calendars
    assert sorted(writes.values()) == [1] * 4 + [2] * 4  # each created once, the moved one updated once
    assert [_sync_runs(logs, target) for target in targets] == [2] * 4  # the attach, the change
    text = "".join(log.read_text() for log in logs)
    assert PASSWORD not in text


def _lease_holder_pid(db: str) -> int:
    """The pid of the job worker holding a CalDAV target's lease (owner is host:pid:random)."""
    with Store.open(db) as store, store.engine.connect() as conn:
        (owner,) = conn.execute(
            select(caldav_targets.c.lease_owner).where(caldav_targets.c.lease_owner.is_not(None))
        ).scalars()
    return int(owner.split(":")[1])


def test_a_killed_workers_caldav_sync_is_finished_by_the_other(
    cluster: Cluster, radicale: DavServer, dav_proxy: DavProxy
) -> None:
    ids = _ids_by_title(cluster)
    titles = [MOVED_TITLE, *OTHER_TITLES]
    logs = [cluster.work / f"killed-sync{i}.log" for i in (1, 2)]
    killed: list[int] = []

    def holder() -> int:
        killed.append(_lease_holder_pid(cluster.db))
        return killed[0]

    with ExitStack() as stack:
        workers = [stack.enter_context(running_worker(cluster.db, log, "--sync-lease", SYNC_LEASE_S)) for log in logs]
        # Whichever worker takes the sync dies once its second event is stored, before the answer.
        dav_proxy.kill_after_put(holder, 2)
        target, url = _attach(cluster, radicale, dav_proxy, [ids[title] for title in titles])
        died = _wait_for(lambda: any(w.poll() is not None for w in workers))
        stored_before = len(calendar(url))
        finished = _wait_for(lambda: synced(cluster.db, [target]))
        codes = [w.poll() for w in workers]

    assert died and finished
    (dead,) = [i for i, w in enumerate(workers) if w.pid == killed[0]]
    assert codes[dead] == -9 and codes[1 - dead] is None
    assert stored_before == 2
    assert sorted(summary for summary, _ in calendar(url).values()) == sorted(titles)
    assert sorted(dav_proxy.writes().values()) == [1, 1, 1]  # nothing written twice
    assert set(uid_counts(bodies(url)).values()) == {1}
    assert f"caldav sync target={target} " not in logs[dead].read_text()
    assert f"caldav sync target={target} created=" in logs[1 - dead].read_text()  # finished, not failed
