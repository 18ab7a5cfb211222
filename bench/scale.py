"""How confcal's whole commands scale: ingest, build, one-change rebuild, serve start, a new ingest
served, and each process's peak memory, at one or several conference sizes (issue 12).

    python bench/scale.py --sessions 1000,10000,50000            # the growth table
    python bench/scale.py --sessions 10000 --no-build            # ingest and serve only

Every figure is a command a user runs, measured from outside:
- `confcal ingest` and `confcal build`: wall time, CPU time (user + system, wait4) and peak RSS;
- serve start: from starting `confcal serve` (defaults: jobs on, one worker) to the first 200 of
  `/feeds/all.ics` a client polling every 20 ms gets, with the server's CPU time at that moment;
- a new ingest served: from the moment the ingest's commit is visible in the store (a reader
  polls the newest version every 5 ms) to the first response with a new ETag that a client
  polling `/feeds/all.ics` every 20 ms (HEAD) sees, and the server CPU spent in between; with
  `--serve-rounds N` the session moves back and forth N times and the median is shown (one
  ingest's figure is mostly where in the server's half-second poll its commit fell).
The load average is printed beside each size: on a shared machine wall time is mostly waiting,
so CPU time is what compares across runs. Nothing here is a test: it prints figures.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import httpx
from asgi_servers import cpu_seconds
from run import CONFCAL, ENV, IDENTITY, compiled, free_port, generate, growth_table, measure, peak_of, show

BENCH = Path(__file__).resolve().parent
POLL = 0.02


def _etag(url: str) -> str | None:
    # HEAD: the same ETag without the body, so polling a 50,000-session all.ics (32 MB) every
    # 20 ms does not make the server's CPU time between commit and new ETag its own sending.
    try:
        reply = httpx.head(url, headers=IDENTITY, timeout=120)
    except httpx.TransportError:
        return None
    return reply.headers.get("etag") if reply.status_code == 200 else None


# What a visitor opens of a new version, besides its feed: the peak memory counts serving them.
VISITED = ("/feeds/all.ics", "/", "/speakers/", "/changes/")


def _visit(base: str) -> None:
    for path in VISITED:
        httpx.get(base + path, timeout=120).raise_for_status()


def _store_version(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        return int(conn.execute("select coalesce(max(id), 0) from schedule_version").fetchone()[0])


class _Watch(threading.Thread):
    """Calls `probe` every `every` seconds until it returns something other than `before`;
    `seen` is then the perf_counter time of that first different answer and `cpu` the server
    process's CPU seconds at that moment."""

    def __init__(self, probe: object, before: object, every: float, pid: int) -> None:
        super().__init__(daemon=True)
        self.probe, self.before, self.every, self.pid = probe, before, every, pid
        self.seen: float | None = None
        self.cpu = 0.0

    def run(self) -> None:
        while self.seen is None:
            if self.probe() != self.before:  # type: ignore[operator]
                self.seen, self.cpu = time.perf_counter(), cpu_seconds(self.pid)
                return
            time.sleep(self.every)


def serve_figures(db: Path, pages: Path, again: Path | None = None, rounds: int = 1) -> dict[str, float]:
    """Start `confcal serve` on `db`, time its first all.ics, then ingest `pages` (which must
    change the default conference's all.ics) and time until the server answers the new version;
    with `again` (the other version) and `rounds` > 1, ingest `again` and `pages` in turn, that
    many ingests in all, and give the medians (and the fastest and slowest served). Each version
    served is visited (`VISITED`) before the next ingest, so its peak memory counts its pages."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/feeds/all.ics"
    started = time.perf_counter()
    server = subprocess.Popen(
        [*CONFCAL, "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    try:
        while (old := _etag(url)) is None:
            if server.poll() is not None:
                raise SystemExit("confcal serve exited before answering")
            time.sleep(POLL)
        figures = {"serve start s": time.perf_counter() - started, "serve start cpu s": cpu_seconds(server.pid)}
        _visit(f"http://127.0.0.1:{port}")
        walls, cpus, ingests = [], [], []
        for at in range(rounds):
            version = _store_version(db)
            committed = _Watch(lambda: _store_version(db), version, 0.005, server.pid)
            served = _Watch(lambda: _etag(url), old, POLL, server.pid)
            committed.start()
            served.start()
            source = pages if at % 2 == 0 or again is None else again
            ingests.append(measure([*CONFCAL, "ingest", "--db", str(db), "--tz", "Europe/Paris", str(source)]))
            committed.join(60)
            served.join(300)
            if committed.seen is None or served.seen is None:
                raise SystemExit("the new version was not served within 5 minutes")
            walls.append(served.seen - committed.seen)
            cpus.append(served.cpu - committed.cpu)
            old = _etag(url)
            _visit(f"http://127.0.0.1:{port}")
        figures["new ingest served s"] = statistics.median(walls)
        figures["new ingest served cpu s"] = statistics.median(cpus)
        if rounds > 1:
            figures["new ingest served fastest s"], figures["new ingest served slowest s"] = min(walls), max(walls)
        figures["reingest s"], figures["reingest cpu s"] = ingests[0].seconds, ingests[0].cpu
        figures["serve MiB"] = peak_of(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)
    return figures


def one_size(n: int, *, build: bool, serve_rounds: int = 1) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix=f"confcal-scale-{n}-") as tmp:
        work = Path(tmp)
        db = work / "store.sqlite"
        generate(n, work)
        figures: dict[str, float] = {"load before": os.getloadavg()[0]}
        ingest = measure([*CONFCAL, "ingest", "--db", str(db), "--tz", "Europe/Paris", str(work / "pages")])
        figures |= {"ingest s": ingest.seconds, "ingest cpu s": ingest.cpu, "ingest MiB": ingest.peak_mib}
        if build:
            full = measure([*CONFCAL, "build", "--db", str(db), str(work / "site")])
            figures |= {"build s": full.seconds, "build cpu s": full.cpu, "build MiB": full.peak_mib}
        measure([*CONFCAL, "ingest", "--db", str(db), "--tz", "Europe/Paris", str(work / "moved")])
        if build:
            again = measure([*CONFCAL, "build", "--db", str(db), str(work / "site")])
            figures |= {"rebuild s": again.seconds, "rebuild cpu s": again.cpu, "rebuild MiB": again.peak_mib}
        # Serve the moved version, then ingest the original pages: the session moves back.
        figures |= serve_figures(db, work / "pages", work / "moved", serve_rounds)
        figures["load after"] = os.getloadavg()[0]
        show(f"{n} sessions:", figures)
        return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="1000,10000,50000", help="sizes, comma-separated")
    parser.add_argument("--no-build", action="store_true", help="skip confcal build (the slow part at 50k)")
    parser.add_argument("--serve-rounds", type=int, default=1, help="ingests served, the session moved back and forth")
    args = parser.parse_args()
    compiled()
    sizes = (int(s) for s in args.sessions.split(","))
    results = {n: one_size(n, build=not args.no_build, serve_rounds=args.serve_rounds) for n in sizes}
    print()
    print(growth_table(results, "sessions"))


if __name__ == "__main__":
    main()
