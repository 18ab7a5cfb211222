"""A synthetic conference in the seed pages' format (a Sched list view copied as text).

    python bench/generate.py --sessions 10000 OUT_DIR      # writes OUT_DIR/schedule.txt
    python bench/generate.py --sessions 10000 --moved OUT_DIR   # the same with one session moved
    python bench/generate.py --sessions 50000 OUT_DIR      # schedule-1.txt ... schedule-5.txt

A page holds at most 10,000 sessions (6.7 MB; `confcal ingest` reads files of up to 20 MiB), so a
larger conference is several list pages of one conference, as a filtered Sched view would give.

Shaped like a large real event: rooms are never double-booked, speakers give several talks,
titles and names use accents, CJK and emoji, sessions carry tracks, levels and kinds. The moved
variant moves the last session into the one place left free on purpose (the first day's last
slot, first room), so a benchmark can measure a one-change re-ingest and rebuild that leaves the
conference's dates as they were.
"""

from __future__ import annotations

import argparse
import math
from datetime import datetime, timedelta
from pathlib import Path

SLOTS_PER_DAY = 16  # 08:00 to 20:00 in 45-minute slots, 40-minute talks
FIRST_DAY = datetime(2026, 4, 6, 8, 0)  # CEST all along: the DST edges have their own tests
TRACKS = [
    "Training Systems",
    "Compilers",
    "Inference",
    "Données & Société",
    "エッジ AI",
    "Robotics",
    "Audio 🎧",
    "Vision",
    "Safety",
    "Tooling",
    "Community",
    "Research",
]
LEVELS = ["Beginner", "Intermediate", "Advanced"]
FIRST = [
    "Ana",
    "Björn",
    "Chloé",
    "Dmitri",
    "Élodie",
    "Farah",
    "Giulia",
    "Hiroshi",
    "Ines",
    "José",
    "Kateřina",
    "Liang",
    "Małgorzata",
    "Nnamdi",
    "Oğuz",
    "Priya",
    "Quentin",
    "Rūta",
    "Søren",
    "美咲",
]
LAST = [
    "Abreu",
    "Bauer",
    "Castellanos",
    "Dąbrowski",
    "Eriksson",
    "Fournier",
    "García",
    "Hämäläinen",
    "Ishikawa",
    "Jovanović",
    "Kowalczyk",
    "Lefèvre",
    "Müller",
    "Nakamura",
    "Ó Briain",
    "Petrović",
]

HEADER = """Bench Conference 2026
Paris, France
View More Details & Registration
This schedule is automatically displayed in CEST (UTC/GMT +2). To see the schedule in your preferred timezone, please select from the drop-down menu.
You must be registered for Bench Conference 2026 to participate in the sessions.
"""


def layout(sessions: int) -> tuple[int, int]:
    """(rooms, days) with room for every session and the free place."""
    rooms = max(4, round(math.sqrt(sessions) / 2.5))
    days = math.ceil((sessions + rooms) / (rooms * SLOTS_PER_DAY))
    return rooms, days


def speaker(k: int) -> tuple[str, str]:
    name = f"{FIRST[k % len(FIRST)]} {LAST[(k // len(FIRST)) % len(LAST)]} {k // (len(FIRST) * len(LAST)) + 1}"
    return name, f"Org {k % 97}"


def session_block(i: int, start: datetime, room: int, pool: int) -> str:
    end = start + timedelta(minutes=40)
    when = f"{start:%A %B} {start.day}, {start:%Y %H:%M} - {end:%H:%M} CEST"
    # Speakers give about three talks each: a pool of a third of the sessions, two per talk.
    people = [speaker((i * 7) % pool), speaker((i * 7 + 3) % pool)]
    names = " & ".join(f"{n}, {o}" for n, o in people)
    kind = "Lightning Talk: " if i % 5 == 0 else ""
    blocks = "".join(
        f"avatar for {n}\n\n{n}\n\nEngineer, {o}\n{n} works on things at {o}… Read More →\n" for n, o in people
    )
    return f"""
{start:%H:%M} CEST

{kind}Talk {i}: Ideas ✨ about «{TRACKS[i % len(TRACKS)]}» - {names}
{when}
An abstract for talk {i} - with a dash, accents (é, ñ, ø) and enough words to look like a real one.

It has a second paragraph, too.
Speakers
{blocks}{when}
Room {room + 1} — Hall {chr(65 + room % 26)}
\u00a0 {TRACKS[i % len(TRACKS)]}
  • Audience Level {LEVELS[i % len(LEVELS)]}
"""


# The place kept free for the moved session: the first day's last slot in the first room, so the
# move changes one session's time and room and never the conference's dates.
FREE = (SLOTS_PER_DAY - 1) * 1  # slot index; room 0


PER_PAGE = 10_000


def page(sessions: int, *, moved: bool = False) -> str:
    """The whole conference as one page."""
    return HEADER + "".join(blocks(sessions, moved=moved))


def pages(sessions: int, *, moved: bool = False) -> list[str]:
    """The conference as pages of at most PER_PAGE sessions, each with the header."""
    every = blocks(sessions, moved=moved)
    return [HEADER + "".join(every[i : i + PER_PAGE]) for i in range(0, len(every), PER_PAGE)]


def blocks(sessions: int, *, moved: bool = False) -> list[str]:
    rooms, days = layout(sessions)
    pool = max(2, sessions // 3)
    out: list[str] = []
    position = 0
    for i in range(sessions):
        if position == FREE * rooms:
            position += 1  # skip the free place
        slot, room = divmod(position, rooms)
        position += 1
        day, in_day = divmod(slot, SLOTS_PER_DAY)
        if moved and i == sessions - 1:
            day, in_day, room = 0, SLOTS_PER_DAY - 1, 0
        start = FIRST_DAY + timedelta(days=day, minutes=45 * in_day)
        out.append(session_block(i, start, room, pool))
    assert len(out) == sessions and days >= 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--moved", action="store_true", help="move the last session into the free slot")
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    written = pages(args.sessions, moved=args.moved)
    for number, text in enumerate(written, start=1):
        name = "schedule.txt" if len(written) == 1 else f"schedule-{number}.txt"
        (args.out / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
