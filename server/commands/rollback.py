"""`confcal rollback [--db] [--conference SLUG] [--force] VERSION`: publish a new schedule version
whose sessions are what VERSION published.

Revisions only rise: every session that changed since gets VERSION's content back with a higher
SEQUENCE, so subscribed calendars update; sessions added since are cancelled (a calendar must be
told they are gone). The rollback is a version like any ingest, listed by `history` and in the
public changelog. Like an ingest, it is refused when it would cancel more than a third of the live
sessions, unless `--force`.
"""

from __future__ import annotations

import argparse
from typing import Any

from server.commands import add_db_option
from server.commands.ingest import version_lines
from server.commands.terminal import safe_lines
from server.jobs.triggers import queue_after_ingest
from server.store import Store, integrity
from server.store.report import no_change_line


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "rollback",
        help="publish a new version equal to an earlier one",
        description=__doc__,
    )
    add_db_option(parser)
    parser.add_argument("--conference", metavar="SLUG", help="the conference VERSION must belong to")
    parser.add_argument(
        "--force", action="store_true", help="accept a rollback that cancels more than a third of the live sessions"
    )
    parser.add_argument("version", metavar="VERSION", type=int, help="the version to restore")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    integrity.check_intact(args.db)
    with Store.open(args.db) as store:
        report = store.rollback(args.version, conference=args.conference, force=args.force)
        if not report.no_change:
            # A rollback is a new version: the attached calendars it changed want their sync.
            queue_after_ingest(store, report.conference)
    if report.no_change:
        print(safe_lines([f"{report.conference}: {no_change_line(report)} (it has version {args.version}'s sessions)"]))
        return 0
    print(safe_lines([f"{report.conference}: rolled back to version {args.version}", *version_lines(report)]))
    return 0
