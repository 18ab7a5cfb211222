"""Benchmark: publishing every feed of a large synthetic conference, from cold and after one change.

    python bench/feeds_bench.py [SESSIONS]      (default 10000)

Prints wall times and the process's peak RSS for: a cold publish (every VEVENT rendered,
every catalogue feed assembled), a republish of identical content, and a republish after one
session moved. Targets are checked here, never as timed assertions in tests.
"""

from __future__ import annotations

import argparse
import resource
import time
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone

from feeds.model import Conference, Level, Room, Schedule, Session, Speaker, Track
from server.snapshot.published import Published


def synthetic(n: int) -> Schedule:
    conference = Conference("Bench Conf", "Europe/Paris", date(2026, 10, 23), date(2026, 10, 26))
    rooms = [Room(f"Room {i}") for i in range(40)]
    tracks = [Track(f"Track {i}") for i in range(25)]
    levels = [Level(x) for x in ("Beginner", "Intermediate", "Advanced")]
    speakers = [Speaker(f"Speaker Number{i}", affiliation=f"Org {i % 300}") for i in range(n // 2 + 1)]
    base = datetime(2026, 10, 23, 7, 0, tzinfo=timezone.utc)  # spans the autumn DST change
    sessions = []
    for i in range(n):
        start = base + timedelta(minutes=30 * (i // len(rooms)) % (4 * 24 * 60))
        sessions.append(
            Session(
                id=f"s{i:06d}",
                title=f"Session {i}: a talk about things é ü ✓",
                start=start,
                end=start + timedelta(minutes=25),
                kind="lightning talk" if i % 5 == 0 else "talk",
                room=rooms[i % len(rooms)],
                track=tracks[i % len(tracks)],
                level=levels[i % 3],
                description="An abstract, with commas; semicolons and a long line. " * 8,
                speakers=(speakers[i // 2], speakers[(i * 7) % len(speakers)]),
                revision=1,
                modified=datetime(2026, 9, 1, tzinfo=timezone.utc),
            )
        )
    return Schedule(conference, tuple(sessions))


def timed(label: str, fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - t0
    # tracemalloc would slow Python several times over, so memory is the process's peak RSS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label:<34} {elapsed * 1000:9.0f} ms   peak RSS {peak:7.0f} MiB")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sessions", type=int, nargs="?", default=10_000, help="sessions (default 10000)")
    n = parser.parse_args().sessions
    schedule = timed(f"build {n} sessions", lambda: synthetic(n))
    now = datetime(2026, 9, 2, tzinfo=timezone.utc)
    cold = timed("cold publish (all feeds)", lambda: Published(schedule, now=now))
    print(f"  {len(cold.feeds)} feeds, all.ics {len(cold.feed('all').representation.body) / 2**20:.1f} MiB")
    timed("republish, same content", lambda: Published(schedule, now=now, previous=cold))
    moved = list(schedule.sessions)
    moved[0] = replace(
        moved[0], start=moved[0].start + timedelta(hours=1), end=moved[0].end + timedelta(hours=1), revision=2
    )
    timed(
        "republish, one session moved",
        lambda: Published(replace(schedule, sessions=tuple(moved)), now=now, previous=cold),
    )


if __name__ == "__main__":
    main()
