"""`confcal build OUTDIR`: write the feeds, session downloads, API documents and the index of every
conference in the store as static files, byte for byte what `confcal serve` answers for the same
paths, for any static host or CDN: each conference under `c/{slug}/`, the default one (`--default`,
else the one ingested first) at the root as well. An empty store is seeded with the built-in demo
conference, as `serve` does.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from server.collector import bulk_allocation
from server.commands import add_base_url_option, add_db_option, add_default_option
from server.commands.progress import add_quiet_option, progress
from server.errors import StoreError

# Without --base-url the links point where `confcal serve` listens by default.
DEFAULT_BASE_URL = "http://127.0.0.1:8080"


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "build",
        help="write the feeds, API and index as static files",
        description=__doc__,
    )
    add_db_option(parser)
    parser.add_argument("outdir", metavar="OUTDIR", type=Path, help="directory to write the site into")
    add_base_url_option(parser)
    add_default_option(parser)
    add_quiet_option(parser)
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="processes that make session and speaker files and QR codes (default: one per core this process may use)",
    )
    parser.set_defaults(run=run)


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (1 or more)")
    return jobs


def run(args: argparse.Namespace) -> int:
    # A build allocates millions of objects without cycles, its modules' among them; the
    # collector's passes over them find nothing (server/collector.py).
    with bulk_allocation():
        return _build(args)


def _build(args: argparse.Namespace) -> int:
    # The store and the renderers load here, not with the module: `confcal build --help` and the
    # other commands' parsers do not need them.
    from server.links import Site
    from server.site.build_conferences import write_store
    from server.site.build_workers import default_jobs
    from server.store import Store
    from server.web.demo import seed_demo

    if args.base_url is None:
        print(
            f"confcal build: no --base-url; subscribe links point at {DEFAULT_BASE_URL}",
            file=sys.stderr,
        )
    with Store.open(args.db) as store:
        seed_demo(store)
        summaries = store.conferences()
        if not summaries:
            raise StoreError("the store holds no schedule")
        default = args.default or summaries[0].slug
        if default not in {c.slug for c in summaries}:
            raise StoreError(f"--default {default}: no such conference in the store")
        now = datetime.now(UTC)

        # Two steps per conference: its snapshot (the store read once), then its files.
        with progress("confcal build", 2 * len(summaries), quiet=args.quiet) as shown:
            # One record for every file of every conference (build_output.py); the changelog
            # of each conference (changes/, changes.atom, api/changes) comes from the store.
            built = write_store(
                store,
                summaries,
                args.outdir,
                Site.of(args.base_url or DEFAULT_BASE_URL),
                default,
                now=now,
                base_url=args.base_url,
                started=shown.step,
                jobs=args.jobs or default_jobs(),
            )
    print(
        f"confcal build: {built.conferences} conference(s), {built.feeds} feeds, {built.sessions} sessions; "
        f"{len(built.keyed)} files checked, {len(built.changed)} written to {args.outdir}"
    )
    return 0
