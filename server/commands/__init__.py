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


def add_base_url_option(parser: argparse.ArgumentParser) -> None:
    """--base-url, shared by `serve`, `build` and `export` so they produce the same bytes."""
    from server.commands import values

    parser.add_argument(
        "--base-url",
        type=values.base_url,
        default=None,
        metavar="URL",
        help="public URL of the site, e.g. https://cal.example.org, for absolute and webcal:// links",
    )


def add_default_option(parser: argparse.ArgumentParser) -> None:
    """--default, shared by `serve` and `build`: the conference the root paths serve."""
    from server.commands import values

    parser.add_argument(
        "--default",
        type=values.conference_slug,
        default=None,
        metavar="SLUG",
        help="conference served at the root paths (default: the one ingested first)",
    )
