"""Benchmark: parse, merge and store a large synthetic Sched list page.

    python bench/ingest_bench.py [SESSIONS]      (default 10000)

The page repeats the seed pages' layout (slot header, title line with speakers, time lines,
description, speaker blocks, room, track, bullets) over four days that cross the autumn DST
change, so it exercises the same paths as a real page.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from feeds.pipeline import load_schedule
from server.store import Store

HEADER = """Bench Conf 2026
Paris, France
View More Details & Registration
This schedule is automatically displayed in CEST (UTC/GMT +2).
You must be registered for Bench Conf 2026 to participate in the sessions.
"""


def page(n: int) -> str:
    out = [HEADER]
    base = datetime(2026, 10, 23, 8, 0)
    for i in range(n):
        start = base + timedelta(days=(i // 400) % 4, minutes=30 * ((i % 400) // 20))
        end = start + timedelta(minutes=25)
        zone = "CEST" if start < datetime(2026, 10, 25, 2, 0) else "CET"
        when = f"{start:%A %B} {start.day}, {start:%Y %H:%M} - {end:%H:%M} {zone}"
        a, b = f"Speaker{i} Person", f"Speaker{i + 1} Person"
        out.append(f"""
{start:%H:%M} {zone}

Talk {i}: On Things - {a}, Org {i % 50} & {b}, Org {(i + 1) % 50}
{when}
An abstract for talk {i} - with a dash, and enough words to look like a real one.
Speakers
avatar for {a}

{a}

Engineer, Org {i % 50}
Bio of {a}... Read More →
avatar for {b}

{b}

Engineer, Org {(i + 1) % 50}
{when}
Room {i % 20}
\u00a0 Track {i % 12}
  • Audience Level Intermediate
""")
    return "".join(out)


def timed(label: str, fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    result = fn()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label:<28} {(time.perf_counter() - t0) * 1000:9.0f} ms   peak RSS {peak:7.0f} MiB")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sessions", type=int, nargs="?", default=10_000, help="sessions (default 10000)")
    n = parser.parse_args().sessions
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "page.txt"
        source.write_text(page(n), encoding="utf-8")
        print(f"page: {source.stat().st_size / 2**20:.1f} MiB, {n} sessions")
        loaded = timed("parse + merge", lambda: load_schedule([str(source)], "Europe/Paris"))
        assert len(loaded.schedule.sessions) == n, len(loaded.schedule.sessions)
        with Store.open(str(Path(tmp) / "bench.sqlite")) as store:
            timed("first ingest (store)", lambda: store.ingest(loaded.schedule))
            timed("same snapshot again", lambda: store.ingest(loaded.schedule))
            timed("live()", store.live)


if __name__ == "__main__":
    main()
