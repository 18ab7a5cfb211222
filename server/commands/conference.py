"""`confcal conference list|remove [--db]`: the conferences in the store, and removing one.

`list` prints one line per conference, in the order they were first ingested (the first is the
one the root paths serve unless `serve --default` names another): slug, name, live sessions and
latest version.

`remove SLUG` removes the conference with its versions, sessions, pick sets, sources and the
CalDAV calendars attached to its pick sets, in one transaction, after asking for confirmation
(`--yes`: without asking, for scripts). Events the CalDAV sync already wrote into calendars stay
there. A running `confcal serve` stops serving the conference within its poll interval; its
subscribed feed URLs answer 404 from then on.

The quick start's demo conference goes by itself: the first ingest of another conference into a
store that holds only the demo as it was seeded removes it, and says so (see `confcal ingest`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from server.commands import add_db_option
from server.commands.terminal import safe, safe_lines
from server.store import Store, removal


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "conference",
        help="list the conferences in the store, or remove one",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="list the conferences, the default (served at the root) first")
    add_db_option(listing)
    listing.set_defaults(run=run_list)
    remove = actions.add_parser(
        "remove", help="remove a conference with its versions, sessions, pick sets, sources and CalDAV calendars"
    )
    add_db_option(remove)
    remove.add_argument("slug", metavar="SLUG", help="the conference (its slug, as `conference list` prints it)")
    remove.add_argument("--yes", action="store_true", help="remove without asking for confirmation")
    remove.set_defaults(run=run_remove)


def run_list(args: argparse.Namespace) -> int:
    with Store.open(args.db) as store:
        summaries = store.conferences()
    if not summaries:
        print("the store holds no conference; run confcal ingest first")
        return 0
    print(safe_lines(f"{c.slug}  {c.conference.name}: {c.sessions} sessions, version {c.version}" for c in summaries))
    return 0


def run_remove(args: argparse.Namespace) -> int:
    with Store.open(args.db) as store:
        found = removal.held(store.engine, args.slug)
        if not args.yes and not _confirmed(found):
            print(f"confcal conference remove: {args.slug} kept", file=sys.stderr)
            return 1
        gone = removal.remove(store.engine, args.slug)
    print(f"removed {safe(gone.name)} ({gone.slug}): {gone.described()}")
    return 0


def _confirmed(found: removal.Held) -> bool:
    """Asks on stderr, reads the answer from stdin (a terminal or a pipe); only y/yes removes."""
    print(
        f"remove {safe(found.name)} ({found.slug}) with {found.described()}? [y/N] ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")
