"""`confcal diff [--db] [--conference SLUG] V1 V2`: what people would see change from schedule
version V1 to V2: new, moved (old -> new time and room, in the conference's zone), retitled,
cancelled and restored sessions, one a line.

Both versions are rebuilt from the content each version recorded (server.store.history); the
store is not changed. V2 may be older than V1 (the changes read backwards).
"""

from __future__ import annotations

import argparse
from typing import Any
from zoneinfo import ZoneInfo

from server.commands import add_db_option
from server.commands.terminal import safe_lines
from server.store import Store
from server.store.changes import ChangeKind, SessionChange, between, detail


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "diff",
        help="show the sessions that are new, moved, retitled or cancelled between two versions",
        description=__doc__,
    )
    add_db_option(parser)
    parser.add_argument("--conference", metavar="SLUG", help="the conference both versions must belong to")
    parser.add_argument("old", metavar="V1", type=int, help="the version to compare from")
    parser.add_argument("new", metavar="V2", type=int, help="the version to compare to")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    with Store.open(args.db) as store:
        slug, before = store.content(args.old, args.conference)
        _, after = store.content(args.new, slug)  # checked to be of the same conference
        schedule = store.live(slug)
    assert schedule is not None  # it has versions
    changes = between(before, after)
    print(safe_lines(lines(args.old, args.new, slug, changes, schedule.conference.zone)))
    return 0


def lines(old: int, new: int, slug: str, changes: tuple[SessionChange, ...], zone: ZoneInfo) -> list[str]:
    """`version 1 -> 3  slug: 1 new, 2 moved, ...` and one line per change."""
    counts = ", ".join(f"{sum(1 for c in changes if c.kind is k)} {k.value}" for k in ChangeKind)
    return [f"version {old} -> {new}  {slug}: {counts}"] + [
        f"  {c.kind.value:<9} {c.id} {detail(c, zone)}" for c in changes
    ]
