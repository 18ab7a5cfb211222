"""`confcal export --format FORMAT [--conference SLUG] OUT`: write a stored conference's schedule
as frab schedule.xml (`frab-xml`), c3voc schedule.json (`c3voc-json`), confcal's own JSON (`json`)
or one iCalendar file (`ics`, the bytes of the all-sessions feed). OUT `-` writes to stdout.

A file is written whole or not at all (a temporary file beside it, then renamed), so an app or web
server reading OUT never sees half a schedule.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from feeds.exports import EXPORTERS
from server.commands import add_base_url_option, add_db_option, add_default_option
from server.commands.progress import add_quiet_option, progress
from server.errors import StoreError
from server.links import served_calendar_base
from server.store import Store


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "export",
        help="write the schedule as frab XML, c3voc JSON, confcal JSON or iCalendar",
        description=__doc__,
    )
    add_db_option(parser)
    parser.add_argument("--format", required=True, choices=sorted(EXPORTERS), help="the format to write")
    parser.add_argument(
        "--conference", metavar="SLUG", help="which conference (default: the store's default, the first ingested)"
    )
    add_base_url_option(parser)
    add_default_option(parser)
    add_quiet_option(parser)
    parser.add_argument("out", metavar="OUT", help="file to write, or - for stdout")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    with progress("confcal export", 3, quiet=args.quiet) as shown:
        shown.step("reading the store")
        with Store.open(args.db) as store:
            schedule = store.live(args.conference)
            if schedule is None:
                if args.conference:
                    raise StoreError(f"the store holds no conference {args.conference!r}")
                raise StoreError("the store holds no schedule; run confcal ingest first")
            # Session links as `serve --base-url` (and --default) gives them: the root's page for
            # the default conference, the conference's base for another.
            calendars = served_calendar_base(args.base_url, schedule.conference.slug, args.default, store)
        exporter = EXPORTERS[args.format]
        shown.step(f"rendering {exporter.name}")
        body = exporter.render(schedule, now=datetime.now(UTC), base_url=calendars)
        shown.step(f"writing {args.out}")
    if args.out == "-":
        sys.stdout.buffer.write(body)
        sys.stdout.buffer.flush()
    else:
        write_whole(Path(args.out), body)
    where = "stdout" if args.out == "-" else args.out
    print(
        f"confcal export: {schedule.conference.slug}, {exporter.name}, {len(body)} bytes to {where}",
        file=sys.stderr,
    )
    return 0


def write_whole(path: Path, body: bytes) -> None:
    """Write `body` to `path` atomically: a reader sees the old file or the new one, never a part."""
    folder = path.parent if str(path.parent) else Path(".")
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(body)
        # mkstemp makes the file private (0600); give it the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
