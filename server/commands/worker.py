"""`confcal worker`: run the background jobs (source refresh) as a process of its own.

For more than one machine: put the store on PostgreSQL (`--db postgresql+psycopg://...`), run each
`confcal serve` with `--no-jobs`, and as many `confcal worker` processes as needed against the same
database; they share one queue, and each source is refreshed by one process at a time. SIGTERM
stops it after the jobs in hand; SIGINT (Ctrl-C) at once.
"""

from __future__ import annotations

import argparse
import logging
from typing import Any

from server.commands import add_db_option
from server.jobs import run_worker
from server.store import Store


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "worker",
        help="run background jobs (source refresh) in a process of its own",
        description=__doc__,
    )
    add_db_option(parser)
    parser.add_argument(
        "--threads", type=_positive_int, default=2, metavar="N", help="jobs to run at once (default: 2)"
    )
    parser.set_defaults(run=run)


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"not a positive integer: {value!r}")
    return number


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # httpx logs every request's URL at INFO, userinfo (a source's password) included.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    with Store.open(args.db) as store:
        run_worker(store, args.threads)
    return 0
