"""`confcal build OUTDIR`: write the feeds, session downloads, both API documents and the index as
static files, byte for byte what `confcal serve` answers for the same paths, for any static host
or CDN. An empty store is seeded with the built-in demo conference, as `serve` does.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from server.app.demo import seed_demo
from server.app.site_build import write_site
from server.app.links import Site
from server.app.published import Published
from server.commands import add_db_option
from server.commands.serve import add_base_url_option
from server.errors import StoreError
from server.store import Store

# Without --base-url the links point where `confcal serve` listens by default.
DEFAULT_BASE_URL = "http://127.0.0.1:8080"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "build",
        help="write the feeds, API and index as static files",
        description=__doc__,
    )
    add_db_option(parser)
    parser.add_argument(
        "outdir", metavar="OUTDIR", type=Path, help="directory to write the site into"
    )
    add_base_url_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.base_url is None:
        print(
            f"confcal build: no --base-url; subscribe links point at {DEFAULT_BASE_URL}",
            file=sys.stderr,
        )
    with Store.open(args.db) as store:
        seed_demo(store)
        schedule = store.live()
    if schedule is None:
        raise StoreError("the store holds no schedule")
    # The calendar bytes use the configured base URL only, exactly as the server renders them.
    published = Published(schedule, now=datetime.now(UTC), base_url=args.base_url)
    site = Site.of(args.base_url or DEFAULT_BASE_URL)
    changed = write_site(published, args.outdir, site)
    print(
        f"confcal build: {len(published.feeds)} feeds, {len(schedule.sessions)} sessions; {len(changed)} files written to {args.outdir}"
    )
    return 0
