"""`confcal worker`: run the background jobs (source refresh, CalDAV sync) as a process of its own.

For more than one machine: put the store on PostgreSQL (`--db postgresql+psycopg://...`), run each
`confcal serve` with `--no-jobs`, and as many `confcal worker` processes as needed against the same
database; they share one queue, each source is refreshed and each attached calendar synced by
one process at a time, and at most --per-host syncs run against one calendar server across all
of them. SIGTERM stops it after the jobs in hand; SIGINT (Ctrl-C) at once. Settings as for
`serve`: flags, the environment or a TOML file (docs/configuration.md).
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import Any

from server.commands import settings
from server.config import add_options, resolve
from server.jobs import run_worker
from server.logs import configure
from server.store import Store


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "worker",
        help="run background jobs (source refresh, CalDAV sync) in a process of its own",
        description=__doc__,
    )
    add_options(parser, settings.WORKER)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    args = resolve(args, settings.WORKER)
    configure(args.log_format, args.log_level)
    with Store.open(args.db) as store:
        run_worker(store, args.threads, timedelta(seconds=args.refresh_lease), settings.sync_settings(args))
    return 0
