"""`confcal ingest [--db] [--tz ZONE] [--format NAME] [--map MAPPING] [--day-change HH:MM] [--conference SLUG] [--force] [--allow-private] [--dry-run] SOURCE...`:
read schedule sources (files, folders, http(s) URLs) as one complete snapshot and store it as a new schedule version.

`--dry-run` prints what the ingest would publish (the same lines, marked) and changes nothing.

An ingest that changes nothing records no version and says which version stays live.

The demo conference `confcal serve` seeds into an empty store (the quick start) is removed by
the first ingest of another conference, while the store holds nothing else of it (only the
seeded version: no later ingest of the demo, no sources, no attached calendars; a demo
ingested with `confcal ingest` is an ingest like any other and stays), so the
organiser's conference becomes the default served at the root; the ingest says so. Any other
store is left as it is (`confcal conference remove` removes a conference; `confcal serve
--no-demo` never seeds the demo).

Each document's format is recognised by its content; `--format` forces one for every document.

Sources are read and parsed before the store is opened, so bad input never touches (or even
creates) the store. Every expected failure is one line on stderr and a non-zero exit.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import time
from pathlib import Path
from typing import Any

from feeds.pipeline import Loaded, load_schedule, refusal
from feeds.sources.table import parse_mapping
from server.collector import bulk_allocation
from server.commands import add_db_option
from server.commands.progress import add_quiet_option, progress
from server.commands.terminal import safe_lines
from server.errors import IngestRefused
from server.store import IngestReport, Store, integrity, removal
from server.store.caldav_wanted import wanted
from server.store.invitations import Invitations
from server.store.location import resolve_url
from server.store.report import no_change_line


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "ingest",
        help="read schedule sources and store them as a new schedule version",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_db_option(parser)
    parser.add_argument(
        "--tz",
        metavar="ZONE",
        default=None,
        help="IANA time zone of the conference (e.g. Europe/Paris) when the pages do not settle it",
    )
    parser.add_argument(
        "--format",
        metavar="NAME",
        default=None,
        help="read every source as this format instead of recognising it (e.g. sched-page, ics)",
    )
    parser.add_argument(
        "--map",
        metavar="MAPPING",
        default=None,
        help="the columns of a plain table (CSV, TSV, JSON rows) the usual names miss: "
        'title=Name,start=StartTime,... or a TOML file of field = "Column" lines',
    )
    parser.add_argument(
        "--day-change",
        metavar="HH:MM",
        type=_day_change,
        default=None,
        help="when one conference day turns over (e.g. 06:00: a 00:30 session belongs to the evening "
        "before), for day feeds, pages and exports; default: what the source states, else 00:00",
    )
    parser.add_argument(
        "--conference",
        metavar="SLUG",
        default=None,
        help="the conference these sources are (its slug in URLs; default: from the name the sources state, "
        "which Sched exports and many .ics files do not)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="accept an ingest that would cancel more than a third of the live sessions, or whose sources "
        "lost data (a damaged time line, a session cut off)",
    )
    parser.add_argument(
        "--allow-private",
        action="store_true",
        help="fetch URLs on loopback or private addresses too (refused by default, as a server would)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the changes this ingest would publish, and store nothing",
    )
    add_quiet_option(parser)
    parser.add_argument("sources", metavar="SOURCE", nargs="+", help="file, folder or http(s) URL")
    parser.set_defaults(run=run)


def _day_change(text: str) -> time:
    try:
        return time.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time of day such as 06:00") from None


def run(args: argparse.Namespace) -> int:
    demo: str | None = None
    with bulk_allocation(), progress("confcal ingest", 2, quiet=args.quiet) as shown:
        # The store file is checked while the sources are read; a dry run stores into a copy.
        checking = None if args.dry_run else integrity.Check(args.db)
        shown.step(f"reading {_plural(len(args.sources), 'source')}")
        loaded = load_schedule(
            args.sources,
            args.tz,
            allow_private=args.allow_private,
            format=args.format,
            conference=args.conference,
            mapping=parse_mapping(args.map) if args.map else None,
            day_change=args.day_change,
        )
        if loaded.defects and not args.force:
            raise IngestRefused(refusal(loaded.defects))
        shown.step(
            f"planning {loaded.schedule.conference.slug}"
            if args.dry_run
            else f"storing {loaded.schedule.conference.slug}"
        )
        if checking is None:
            with Store.open(_preview_url(args.db)) as store:
                report = store.ingest(loaded.schedule, force=args.force, dry_run=True)
        else:
            checking.verdict()
            with Store.open(args.db) as store:
                report = store.ingest(loaded.schedule, force=args.force)
                demo = _demo_left_behind(store, report)
                if demo is not None:
                    removal.remove(store.engine, demo)
                # The server's workers sync the attached calendars the new version changed. The
                # job queue's modules (Huey, the CalDAV client) take longer to import than a small
                # ingest takes: imported only when some calendar wants a sync or some address
                # an invitation.
                slug = report.conference
                if wanted(store.engine, conference=slug) or Invitations(store.engine).due(conference=slug):
                    from server.jobs.triggers import queue_after_ingest

                    queue_after_ingest(store, slug)
    lines = [DRY_RUN, *summary(loaded, report)] if args.dry_run else summary(loaded, report)
    if not args.dry_run and demo is not None:
        lines.append(
            f"removed the demo conference {demo}, which the store held only as the quick start seeded it: "
            f"{report.conference} is now the default conference"
        )
    print(safe_lines(lines))
    return 0


def _demo_left_behind(store: Store, report: IngestReport) -> str | None:
    """The demo's slug when this ingest brought the first real conference into a store holding
    only the untouched demo beside it; None otherwise."""
    if report.no_change or report.version != 1:
        return None
    found = store.conferences()
    if len(found) != 2 or found[0].slug == report.conference or found[0].version != 1:
        return None
    if not all(version.demo_seed for version in store.history(found[0].slug)):
        return None  # ingested by hand, not seeded
    held = removal.held(store.engine, found[0].slug)
    return held.slug if held.sources == 0 and held.calendars == 0 else None


DRY_RUN = "dry run: nothing was stored; an ingest would publish:"


def _preview_url(db: str | None) -> str:
    """The store to plan against: a SQLite file that does not exist yet is not created (the
    preview is planned in an empty in-memory store, as a first ingest would find it)."""
    url = resolve_url(db)
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return "sqlite://"
    return url


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def summary(loaded: Loaded, report: IngestReport) -> list[str]:
    """The lines `ingest` prints: what was read, what changed since the previous version, and
    every warning with its file and line."""
    c = report.counts
    read = (
        _plural(c.sessions, "session"),
        _plural(c.speakers, "speaker"),
        _plural(c.rooms, "room"),
        _plural(c.tracks, "track"),
        _plural(c.levels, "level"),
    )
    lines = [f"{loaded.schedule.conference.name}: {', '.join(read)}", *version_lines(report)]
    if loaded.defects:
        lines.append(_plural(len(loaded.defects), "defect") + " (ingested with --force):")
        lines += [f"  {defect}" for defect in loaded.defects]
    if loaded.warnings:
        lines.append(_plural(len(loaded.warnings), "warning") + ":")
        lines += [f"  {warning}" for warning in loaded.warnings]
    return lines


def version_lines(report: IngestReport, label: str = "") -> list[str]:
    """`version N: 1 added, ...` (with `label` after the number) and one line per session the
    version added, changed, cancelled or restored; also what `confcal rollback` prints.
    An ingest that changed nothing recorded no version, and says so in one line."""
    if report.no_change:
        return [no_change_line(report)]
    diff = (
        f"{len(report.added)} added",
        f"{len(report.changed)} changed",
        f"{len(report.cancelled)} cancelled",
        f"{len(report.restored)} restored",
        f"{report.unchanged} unchanged",
    )
    lines = [f"version {report.version}{label}: {', '.join(diff)}"]
    lines += _listing("added", report.added, report)
    lines += [f"  changed   {sid} {report.titles[sid]} ({', '.join(fields)})" for sid, fields in report.changed.items()]
    lines += _listing("cancelled", report.cancelled, report)
    lines += _listing("restored", report.restored, report)
    return lines


def _listing(label: str, ids: Sequence[str], report: IngestReport) -> list[str]:
    return [f"  {label:<9} {sid} {report.titles[sid]}" for sid in ids]
