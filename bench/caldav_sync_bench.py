"""Benchmark: how long the server takes to bring N attached calendars up to date after one
re-ingest (issue 10).

    python bench/caldav_sync_bench.py [--targets 1000] [--per-host 4] [--workers 1] [--threads 4]

A local Radicale (its own threaded server, htpasswd login) holds N calendars, one per pick set;
every set picks the same three demo sessions. The store is a SQLite file with the demo
conference; `confcal worker` processes run the sync jobs with the per-host limit given (all N
calendars are on one host, so the limit is the whole parallelism). First every calendar is
synced once (timed too); then `confcal ingest` stores the demo pages with one picked session
moved by an hour, and the clock runs until every target's synced generation has caught up. A
sample of calendars is read back to check the moved event moved.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from base64 import b64encode
from datetime import UTC, datetime
from pathlib import Path

import icalendar
from sqlalchemy import func, select

from feeds.demo import DEMO_DIR, DEMO_TZ
from server.caldav.dav import DavStorage
from server.crypto import Password, Secret
from server.jobs import jobs_for
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.caldav_wanted import Wanted
from server.store.picks import PickStore
from server.store.tables import caldav_targets

USER, PASSWORD = "bench", "bench-password"
SLUG = "pytorch-conference-europe-2026"
MOVED = "Parameterized CUDA Graph Launch in PyTorch: CUDA Graphs Without the Pain"
OTHERS = ("Helion 1.0: A High-Level DSL for Performance Portable Kernels", "TorchJD: Jacobian Descent in PyTorch")
MOVED_TO = datetime(2026, 4, 7, 11, 0, tzinfo=UTC)  # 13:00 CEST
OLD_TIME, NEW_TIME = "Tuesday April 7, 2026 12:00 - 12:25 CEST", "Tuesday April 7, 2026 13:00 - 13:25 CEST"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_radicale(root: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    (root / "users").write_text(f"{USER}:{PASSWORD}\n")
    (root / "radicale.conf").write_text(
        f"[server]\nhosts = 127.0.0.1:{port}\n"
        f"[auth]\ntype = htpasswd\nhtpasswd_filename = {root / 'users'}\nhtpasswd_encryption = plain\ndelay = 0\n"
        "[rights]\ntype = owner_only\n"
        f"[storage]\nfilesystem_folder = {root / 'collections'}\n"
        "[logging]\nlevel = warning\n"
    )
    log = (root / "radicale.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "radicale", "--config", str(root / "radicale.conf")], stdout=log, stderr=log
    )
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process, port
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("radicale did not start; see " + str(root / "radicale.log"))


def mkcalendar(url: str) -> None:
    auth = b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    request = urllib.request.Request(url, method="MKCALENDAR", headers={"Authorization": f"Basic {auth}"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        answer.read()


def confcal(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "server.cli", *args], check=True, stdout=subprocess.DEVNULL)


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU seconds the processes used so far (Linux /proc, fields 14 and 15)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def lagging(store: Store) -> int:
    """Targets not yet synced up to their wanted generation (or still held)."""
    query = select(func.count()).where(
        (caldav_targets.c.wanted_generation > caldav_targets.c.synced_generation)
        | caldav_targets.c.lease_owner.is_not(None)
    )
    with store.engine.connect() as conn:
        return int(conn.execute(query).scalar_one())


def wait_all_synced(store: Store, deadline: float = 3600.0) -> float:
    started = time.monotonic()
    while lagging(store):
        if time.monotonic() - started > deadline:
            raise SystemExit(f"not synced after {deadline:.0f} s: {lagging(store)} calendars behind")
        time.sleep(0.1)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=1000)
    parser.add_argument("--per-host", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1, help="confcal worker processes")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    args = parser.parse_args()
    os.environ["CONFCAL_CALDAV_ALLOW_PRIVATE"] = "1"  # Radicale is on loopback

    work = Path(tempfile.mkdtemp(prefix="caldav-bench-"))
    (work / "radicale").mkdir()
    radicale, port = start_radicale(work / "radicale")
    workers: list[subprocess.Popen[bytes]] = []
    try:
        db = str(work / "store.sqlite")
        confcal("ingest", "--tz", DEMO_TZ, str(DEMO_DIR), "--db", db)
        store = Store.open(db)
        live = store.live(SLUG)
        assert live is not None
        ids = {s.title: s.id for s in live.sessions}
        picked = [ids[MOVED], *(ids[t] for t in OTHERS)]

        started = time.monotonic()
        picks, targets = PickStore(store.engine), CaldavTargets(store.engine)
        base = f"http://127.0.0.1:{port}/{USER}"
        attached = []
        for n in range(args.targets):
            url = f"{base}/cal{n:05d}/"
            mkcalendar(url)
            token = picks.create(SLUG, picked).token
            attached.append(targets.attach(SLUG, token, url, USER, Secret(PASSWORD), datetime.now(UTC)))
        print(f"setup: {args.targets} calendars made and attached in {time.monotonic() - started:.1f} s")

        jobs = jobs_for(store)
        for target in attached:
            jobs.queue_sync(Wanted(target.id, target.wanted_generation))
        jobs.queue.storage.close()
        command = [sys.executable, "-m", "server.cli", "worker", "--db", db, "--threads", str(args.threads)]
        command += ["--per-host", str(args.per_host)]
        started = time.monotonic()
        for i in range(args.workers):
            log = (work / f"worker{i}.log").open("wb")
            workers.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT))
        first = wait_all_synced(store)
        print(f"first sync (3 events each): {args.targets} calendars in {first:.1f} s (workers starting included)")

        pages = work / "pages"
        shutil.copytree(DEMO_DIR, pages)
        page = pages / "002_f0fe97cd188ad8b4.txt"
        page.write_text(page.read_text(encoding="utf-8").replace(OLD_TIME, NEW_TIME), encoding="utf-8")
        pids = [p.pid for p in workers]
        cpu_before = cpu_seconds(pids), cpu_seconds([radicale.pid])
        started = time.monotonic()
        confcal("ingest", "--tz", DEMO_TZ, str(pages), "--db", db)
        ingested = time.monotonic() - started
        total = ingested + wait_all_synced(store)
        cpu_workers, cpu_radicale = cpu_seconds(pids) - cpu_before[0], cpu_seconds([radicale.pid]) - cpu_before[1]
        print(
            f"re-ingest moving one session every calendar holds: all {args.targets} calendars up to date "
            f"{total:.1f} s after `confcal ingest` started (the ingest itself {ingested:.1f} s); "
            f"per-host limit {args.per_host}, {args.workers} worker(s) x {args.threads} threads, "
            f"{args.targets / (total - ingested):.1f} calendars/s; CPU meanwhile: workers {cpu_workers:.1f} s, "
            f"Radicale {cpu_radicale:.1f} s; load average {os.getloadavg()[0]:.1f}"
        )

        for target in attached[:: max(1, args.targets // 20)]:
            storage = DavStorage.connect(target.url, USER, Password(PASSWORD), allow_private=True)
            try:
                bodies = [storage.get(name).ics for name in storage.list()]
            finally:
                storage.close()
            starts = {
                str(e["SUMMARY"]): e.start for b in bodies for e in icalendar.Calendar.from_ical(b).walk("VEVENT")
            }
            assert len(starts) == 3 and starts[MOVED] == MOVED_TO, (target.url, starts)
        print("checked: the moved event moved in a sample of 20 calendars")
        store.close()
    finally:
        for process in workers:
            process.terminate()
        for process in workers:
            process.wait(timeout=60)
        radicale.terminate()
        radicale.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
