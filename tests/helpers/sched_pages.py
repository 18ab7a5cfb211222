"""Large Sched list pages for load tests, written in the seed pages' line format (see
../shared/seeds): header, slot line, title line with speakers, time line, abstract, speaker
blocks, time line again, room, track. Deterministic for a given size and `edition`: a later
edition moves every session to another room, so ingesting it rewrites every stored row."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

HEADER = """Loading…
20-23 October, 2026
Paris, France
View More Details & Registration
Note: The schedule is subject to change.

You must be registered for Load Test Conf 2026 to participate in the sessions.

This schedule is automatically displayed in CEST (UTC/GMT +2). To see the schedule in your preferred timezone, please select from the drop-down menu.
arrow_back View All Dates
"""

ROOMS = 25
SLOTS_PER_DAY = 20  # half-hour slots from 08:00


def session_block(i: int, edition: int) -> str:
    # ROOMS sessions share a slot; four days in October, all in CEST.
    slot = i // ROOMS
    start = datetime(2026, 10, 20, 8) + timedelta(days=(slot // SLOTS_PER_DAY) % 4, minutes=30 * (slot % SLOTS_PER_DAY))
    end = start + timedelta(minutes=25)
    when = f"{start:%A %B} {start.day}, {start:%Y %H:%M} - {end:%H:%M} CEST"
    speaker = f"Speaker{i} Person"
    room = f"Room {(i + edition) % ROOMS}"
    return f"""
{start:%H:%M} CEST

Talk {i}: Load Testing Things - {speaker}, Org {i % 40}
{when}
An abstract for talk {i} - long enough to look like one, short enough to keep the page small.
Speakers
avatar for {speaker}

{speaker}

Engineer, Org {i % 40}
Bio of {speaker}... Read More →
{when}
{room}
\u00a0 Track {i % 12}
"""


def write_page(path: Path, sessions: int, edition: int = 0) -> Path:
    """Write a page of `sessions` sessions to `path` (for `confcal ingest --tz Europe/Paris`)."""
    with path.open("w", encoding="utf-8") as out:
        out.write(HEADER)
        for i in range(sessions):
            out.write(session_block(i, edition))
    return path
