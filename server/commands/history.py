"""`confcal history [--db] [--conference SLUG]`: every schedule version, newest first, with what
it changed (added, changed, cancelled, restored) and when it was ingested (UTC).

Read from the diff each ingest records (server.store.report); the store is not changed.
"""

from __future__ import annotations

import argparse
from typing import Any

from server.commands import add_db_option
from server.commands.terminal import safe_lines
from server.errors import StoreError
from server.store import IngestReport, Store


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "history",
        help="list the schedule versions, newest first, with their counts",
        description=__doc__,
    )
    add_db_option(parser)
    parser.add_argument("--conference", metavar="SLUG", help="only this conference's versions")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    with Store.open(args.db) as store:
        reports = store.history(args.conference)
    if not reports:
        if args.conference:
            raise StoreError(f"the store holds no conference {args.conference!r}")
        raise StoreError("the store holds no schedule; run confcal ingest first")
    print(safe_lines(line(report) for report in reports))
    return 0


def line(report: IngestReport) -> str:
    """`version 3  2026-03-30 12:00 UTC  slug: 0 added, 2 changed, 1 cancelled, 0 restored`."""
    when = report.created.strftime("%Y-%m-%d %H:%M UTC")
    counts = (
        f"{len(report.added)} added, {len(report.changed)} changed, "
        f"{len(report.cancelled)} cancelled, {len(report.restored)} restored"
    )
    rollback = f" (rollback to version {report.rollback_of})" if report.rollback_of is not None else ""
    return f"version {report.version}  {when}  {report.conference}: {counts}{rollback}"
