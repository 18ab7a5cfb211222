"""`confcal db upgrade|current|check [--db]`: the store's schema revision, bringing it up to date,
and checking that a SQLite store file is intact.

On SQLite every command upgrades the store file by itself; on PostgreSQL `confcal db upgrade` is a
step of its own, run once before the new version's processes start (server.store.schema says why).
Running it again, or from several processes at once, is harmless.

`confcal db check` runs SQLite's full `PRAGMA integrity_check` and prints `ok`, or each problem
found and exits 1 (`confcal serve` and `confcal ingest` run the quicker `quick_check` before
they start, server.store.integrity). It only reads the file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sqlalchemy import make_url

from server.commands import add_db_option
from server.commands.terminal import safe_lines
from server.errors import StoreError
from server.store import integrity, schema
from server.store.engine import display, make_engine
from server.store.location import resolve_url, sqlite_file


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "db",
        help="upgrade the store's schema, or show its revision",
        description=__doc__,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    upgrade = actions.add_parser("upgrade", help="bring the store's schema up to date (creates a new store)")
    add_db_option(upgrade)
    upgrade.set_defaults(run=run_upgrade)
    current = actions.add_parser("current", help="print the store's schema revision and the one this confcal needs")
    add_db_option(current)
    current.set_defaults(run=run_current)
    check = actions.add_parser(
        "check", help="check a SQLite store file for damage (PRAGMA integrity_check); prints ok or what is wrong"
    )
    add_db_option(check)
    check.set_defaults(run=run_check)


def run_upgrade(args: argparse.Namespace) -> int:
    url = resolve_url(args.db)
    engine = make_engine(url)
    try:
        done = schema.upgrade(engine)
    finally:
        engine.dispose()
    if done.changed:
        print(f"upgraded {display(url)} from {done.before or 'no revision'} to {done.after}")
    else:
        print(f"{display(url)} is up to date ({done.after})")
    return 0


def run_current(args: argparse.Namespace) -> int:
    url = resolve_url(args.db)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and not Path(parsed.database).exists():
        # Only reading: opening a SQLite file that is not there would create it.
        raise StoreError(f"no store at {parsed.database}")
    engine = make_engine(url)
    try:
        found = schema.current(engine)
    finally:
        engine.dispose()
    wanted = schema.head()
    state = "up to date" if found == wanted else "needs `confcal db upgrade`"
    print(f"{display(url)}: {found or 'no revision'} ({state}; this confcal needs {wanted})")
    return 0 if found == wanted else 1


def run_check(args: argparse.Namespace) -> int:
    url = resolve_url(args.db)
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise StoreError(
            f"{display(url)}: `confcal db check` checks SQLite files; PostgreSQL checks its own pages (pg_amcheck)"
        )
    path = sqlite_file(url)
    if path is None:
        raise StoreError(f"no store at {parsed.database}")
    found = integrity.problems(path, full=True)
    if not found:
        print(f"{path}: ok")
        return 0
    print(safe_lines([f"{path} is damaged; restore it from a backup. SQLite found:", *(f"  {p}" for p in found)]))
    return 1
