"""Many conferences on one store: how the whole commands grow with the number of conferences.

    python bench/conferences.py --conferences 1,100,1000            # 200 sessions each
    python bench/conferences.py --conferences 1,10,100 --no-build   # quick

The store is filled in this process (Store.ingest of one generated 200-session page under a
slug per conference, `bench-0000` the default): that is set-up, not measured. Then, for each
size, as a user runs them (CPU time of the command beside its wall, peak memory of its tree):
- `confcal ingest` of one more conference, and the re-ingest of it with one session moved;
- `confcal serve`: from start to the first 200 of the default conference's all.ics; a cold
  conference's all.ics (never asked for: read from the store, made, rendered) and the same feed
  warm, each the median of a few conferences; a new ingest of a held conference served (from the
  ingest's commit to the first answer with a new ETag); wrk on a warm conference's feed, its
  schedule page and `/api/conferences` (those two with a query string not asked before at each
  request) against the ceiling app serving the same bytes (bench/ceiling_app.py, granian, one
  worker each); the server's peak memory after a crawl asking every conference's
  feed once (snapshots are let go beyond `server.snapshot.live.KEEP`), and the crawl's time;
- `confcal build` of every conference and the one-change rebuild (unless --no-build).
Nothing here is a test: it prints figures.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import serve_bench
from asgi_servers import cpu_seconds
from run import CONFCAL, ENV, IDENTITY, compiled, cpu_index, free_port, generate, measure, peak_of, show

BENCH = Path(__file__).resolve().parent
SESSIONS = 200
COLD = 5  # cold conferences asked for, the median shown


def fill(db: Path, pages: Path, first: int, last: int) -> None:
    """Conferences `first`..`last - 1` of the same generated page, ingested in this process."""
    sys.path.insert(0, str(BENCH.parent))
    from feeds.pipeline import load_schedule
    from server.store import Store

    schedule = load_schedule([str(pages)], "Europe/Paris").schedule
    with Store.open(str(db)) as store:
        for i in range(first, last):
            conference = dataclasses.replace(schedule.conference, slug=slug(i))
            store.ingest(dataclasses.replace(schedule, conference=conference))


def slug(i: int) -> str:
    return f"bench-{i:04d}"


def timed_get(url: str) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    reply = httpx.get(url, headers=IDENTITY, timeout=120)
    return time.perf_counter() - started, reply


def serve_figures(db: Path, count: int, work: Path, moved: Path) -> dict[str, float]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    figures: dict[str, float] = {}
    started = time.perf_counter()
    server = subprocess.Popen(
        [*CONFCAL, "serve", "--db", str(db), "--port", str(port), "--no-jobs", "--default", slug(0)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    ceiling = None
    try:
        while True:
            try:
                if httpx.get(url + "/feeds/all.ics", headers=IDENTITY, timeout=60).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None:
                raise SystemExit("confcal serve exited before answering")
            time.sleep(0.02)
        figures["serve start s"] = time.perf_counter() - started
        figures["serve start cpu s"] = cpu_seconds(server.pid)
        picked = sorted({(count * k) // (COLD + 1) for k in range(1, COLD + 1)} - {0}) or [0]
        cold = [timed_get(f"{url}/c/{slug(i)}/feeds/all.ics")[0] for i in picked]
        time.sleep(1.0)  # the warm-up renders the rest of their feeds
        warm = [timed_get(f"{url}/c/{slug(i)}/feeds/all.ics")[0] for i in picked]
        figures["cold feed ms"] = 1000 * statistics.median(cold)
        figures["warm feed ms"] = 1000 * statistics.median(warm)
        # A new ingest of a held conference, served: from its commit to a new ETag.
        held = picked[-1]
        feed = f"{url}/c/{slug(held)}/feeds/all.ics"
        before = httpx.get(feed, headers=IDENTITY, timeout=60).headers["etag"]
        ingest = measure(
            [*CONFCAL, "ingest", "--db", str(db), "--tz", "Europe/Paris", "--conference", slug(held), str(moved)]
        )
        committed = time.perf_counter()
        while httpx.get(feed, headers=IDENTITY, timeout=60).headers["etag"] == before:
            if time.perf_counter() - committed > 120:
                raise SystemExit("the new version was not served within 2 minutes")
            time.sleep(0.02)
        figures["new ingest served s"] = time.perf_counter() - committed
        figures["held reingest cpu s"] = ingest.cpu
        # The warm feed, a held conference's schedule page and `/api/conferences` against the
        # ceiling serving their bytes. The page and the list are asked with a query string not
        # asked before (a campaign tag, which both ignore), as shared links are, so they show what
        # such a request costs beside the number of conferences the page links to and the list
        # holds.
        ceiling_root = work / "ceiling"
        page, listed = f"/c/{slug(held)}/", "/api/conferences"
        # Stored as the ceiling serves them (a path ending in "/" is its index.html), and as asked.
        stored = {f"{page}feeds/all.ics": f"{page}feeds/all.ics", f"{page}index.html": page, listed: listed}
        for path, asked in stored.items():
            target = ceiling_root / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(httpx.get(url + asked, headers=IDENTITY, timeout=60).content)
        cport = free_port()
        curl = f"http://127.0.0.1:{cport}"
        ceiling = serve_bench.start(
            [sys.executable, str(BENCH / "ceiling_app.py"), "--server", "granian", "--port", str(cport)]
            + [str(ceiling_root)],
            f"{curl}{page}feeds/all.ics",
        )
        ours, _ = serve_bench.wrk(feed, server.pid, 5)
        theirs, _ = serve_bench.wrk(f"{curl}{page}feeds/all.ics", ceiling.pid, 5)
        figures["warm feed / ceiling"] = ours / theirs
        for path, label in ((page, "page"), (listed, "conferences API")):
            script = serve_bench.new_queries(work, path)
            ours, _ = serve_bench.wrk(url + path, server.pid, 5, script=script)
            theirs, _ = serve_bench.wrk(curl + path, ceiling.pid, 5, script=script)
            figures[f"{label}, new queries req/s"] = ours
            figures[f"{label}, new queries / ceiling"] = ours / theirs
        # Every conference asked for once: what the server holds at most.
        crawl = time.perf_counter()
        for i in range(count):
            httpx.get(f"{url}/c/{slug(i)}/feeds/all.ics", headers=IDENTITY, timeout=120).raise_for_status()
        figures["crawl s"] = time.perf_counter() - crawl
        figures["serve MiB"] = peak_of(server.pid)
    finally:
        for process in (server, ceiling):
            if process is not None:
                process.terminate()
                process.wait(timeout=60)
    return figures


def one_size(work: Path, db: Path, count: int, *, build: bool) -> dict[str, float]:
    pages, moved = work / "pages", work / "moved"
    figures: dict[str, float] = {"load before": os.getloadavg()[0]}
    extra = ["--tz", "Europe/Paris", "--conference", f"extra-{count}"]
    ingest = measure([*CONFCAL, "ingest", "--db", str(db), *extra, str(pages)])
    figures |= {"ingest s": ingest.seconds, "ingest cpu s": ingest.cpu, "ingest MiB": ingest.peak_mib}
    if build:
        site = work / f"site-{count}"
        full = measure([*CONFCAL, "build", "--db", str(db), str(site)])
        figures |= {"build s": full.seconds, "build cpu s": full.cpu, "build MiB": full.peak_mib}
    again = measure([*CONFCAL, "ingest", "--db", str(db), *extra, str(moved)])
    figures |= {"reingest s": again.seconds, "reingest cpu s": again.cpu, "reingest MiB": again.peak_mib}
    if build:
        rebuild = measure([*CONFCAL, "build", "--db", str(db), str(site)])
        figures |= {"rebuild s": rebuild.seconds, "rebuild cpu s": rebuild.cpu, "rebuild MiB": rebuild.peak_mib}
    figures |= serve_figures(db, count, work, moved)
    figures["load after"] = os.getloadavg()[0]
    return figures


def growth(counts: list[int], *, build: bool) -> dict[int, dict[str, float]]:
    """Every figure for each number of conferences (one store, filled up as it goes)."""
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="confcal-conferences-") as tmp:
        work = Path(tmp)
        generate(SESSIONS, work)
        db = work / "store.sqlite"
        have = 0
        for count in counts:
            started = time.perf_counter()
            fill(db, work / "pages" / "schedule.txt", have, count)
            have = count
            filled = time.perf_counter() - started
            figures = results[count] = one_size(work, db, count, build=build)
            show(f"{count} conferences of {SESSIONS} sessions (filled in {filled:.0f} s):", figures)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conferences", default="1,100,1000", help="sizes, comma-separated, rising")
    parser.add_argument("--no-build", action="store_true", help="skip confcal build")
    args = parser.parse_args()
    compiled()
    serve_bench.ensure_tools()
    print(f"machine: {os.cpu_count()} cores, CPU index {cpu_index():.2f} s")
    growth([int(c) for c in args.conferences.split(",")], build=not args.no_build)


if __name__ == "__main__":
    main()
