"""Sub-commands of `confcal`. Each module has `register(subparsers)` which sets `run=` on its parser."""

from __future__ import annotations

import argparse
import os


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=os.environ.get("CONFCAL_DB"),
        help="store: a SQLite file path or a SQLAlchemy URL (default: $CONFCAL_DB, else a file in the user data directory)",
    )
