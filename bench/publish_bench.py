"""The server's CPU of publishing one moved session, in-process: `Store.read_since` and a patched
`Published(schedule, previous=..., lazy=True, written=...)`, as `server.snapshot.live.Live.refresh`
does them (run on a tree without `read_since`, it times `live_since` and `Published` as before).

    python bench/publish_bench.py --sessions 10000,50000            # generates, ingests, measures
    python bench/publish_bench.py --sessions 50000 --work /dev/shm/x --profile

For each size: a conference is generated (bench/generate.py) with its moved variant, ingested
into a fresh SQLite store, and read once as the server does at start. Then, each round, the
other variant is ingested by `confcal ingest` in a child process (one session moves, or moves
back) and the server's two steps are timed with `time.process_time()`. It prints the median and
the best of the rounds, and the ratio of the largest size to the smallest (issue 32 asks for
publishing to be flat: at most 1.2x from 10,000 to 50,000 sessions). Nothing here is a test.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))

from server.snapshot.published import Published  # noqa: E402
from server.store import Store  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _run(*args: str) -> None:
    subprocess.run([sys.executable, *args], check=True, env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL)


def _ingest(db: Path, pages: Path) -> None:
    _run("-m", "server.cli", "ingest", "--db", str(db), "--tz", "Europe/Paris", str(pages))


def one_size(n: int, work: Path, rounds: int, profile: bool) -> dict[str, float]:
    pages, moved = work / f"pages{n}", work / f"moved{n}"
    if not pages.exists():
        _run(str(BENCH / "generate.py"), "--sessions", str(n), str(pages))
    if not moved.exists():
        _run(str(BENCH / "generate.py"), "--sessions", str(n), "--moved", str(moved))
    db = work / f"publish{n}.sqlite"
    db.unlink(missing_ok=True)
    _ingest(db, pages)
    store = Store.open(str(db))
    try:
        slug = store.conferences()[0].slug
        schedule = store.live(slug)
        assert schedule is not None
        published = Published(schedule, now=datetime.now(UTC), lazy=True)
        since = store.conferences()[0].version
        reads, snapshots = [], []
        profiler = cProfile.Profile() if profile else None
        for at in range(rounds):
            _ingest(db, moved if at % 2 == 0 else pages)
            version = store.conferences()[0].version
            start = time.process_time()
            if profiler is not None:
                profiler.enable()
            if hasattr(store, "read_since"):
                found = store.read_since(published.schedule, since, published.sessions_by_id)
                middle = time.process_time()
                assert found is not None
                made = Published(
                    found.schedule, now=datetime.now(UTC), previous=published, lazy=True, written=found.written
                )
            else:
                read = store.live_since(published.schedule, since)
                middle = time.process_time()
                assert read is not None
                made = Published(read, now=datetime.now(UTC), previous=published, lazy=True)
            end = time.process_time()
            if profiler is not None:
                profiler.disable()
            reads.append(middle - start)
            snapshots.append(end - middle)
            published, since = made, version
        if profiler is not None:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    finally:
        store.close()
    return {
        "live_since": statistics.median(reads),
        "live_since_best": min(reads),
        "published": statistics.median(snapshots),
        "published_best": min(snapshots),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", default="10000,50000", help="comma-separated sizes")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--work", type=Path, help="where to keep the pages and stores (default: a temporary dir)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top of the timed steps")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sessions.split(",")]
    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        figures = {}
        for n in sizes:
            figures[n] = one_size(n, work, args.rounds, args.profile)
            f = figures[n]
            print(
                f"{n:>6} sessions: live_since {f['live_since'] * 1000:.1f} ms (best {f['live_since_best'] * 1000:.1f}),"
                f" Published {f['published'] * 1000:.1f} ms (best {f['published_best'] * 1000:.1f}),"
                f" total {(f['live_since'] + f['published']) * 1000:.1f} ms CPU; load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
        if len(sizes) > 1:
            low, high = figures[sizes[0]], figures[sizes[-1]]
            total = (high["live_since"] + high["published"]) / (low["live_since"] + low["published"])
            print(f"{sizes[-1]} / {sizes[0]}: {total:.2f}x (target at most 1.2x)")


if __name__ == "__main__":
    main()
