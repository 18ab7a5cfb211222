"""`confcal push`: put picked sessions into your own CalDAV calendar and keep them up to date.

Each run states the full set of sessions the calendar should hold from this conference; see
server/caldav/ for the rules. Progress goes to stderr, the summary line to stdout. The password
comes from an environment variable or a file, never the command line, and is never printed.

Exit codes, so that scripts can tell the outcomes apart: 0 every event is as planned, 1 an error
(one line on stderr), 3 the run finished but left events alone (conflicts: the calendar's owner
changed them), 4 another sync held the calendar for longer than --wait.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from server.caldav import lock, service
from server.caldav.discovery import choose, discover
from server.caldav.errors import CalendarBusy, NoSuchCalendar, PasswordUnavailable
from server.caldav.plan import Keep, uid_of
from server.caldav.retry import DEFAULT_RETRY, RetryPolicy
from server.caldav.target import PickToken, SessionIds, SyncOptions, Target
from server.commands import add_base_url_option, add_db_option, add_default_option
from server.commands.terminal import safe
from server.crypto import Password
from server.links import served_calendar_base
from server.store import Store
from server.store.picks import PickStore

# Module-level so tests can run the CLI against a dead port without real backoff sleeps.
RETRY: RetryPolicy = DEFAULT_RETRY

CONFLICTS = 3  # the run finished, and left events the calendar's owner changed alone
BUSY = 4  # another sync held the calendar for all of --wait

_EPILOG = (
    "exit status: 0 done, every event as planned; 1 error; 3 done, but events were left alone "
    "(conflicts, listed on stderr); 4 another sync held the calendar longer than --wait"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "push",
        help="push sessions into your own CalDAV calendar",
        description="Create, update and delete events in a CalDAV calendar so it holds exactly the "
        "given sessions. Only events confcal created are ever changed.",
        epilog=_EPILOG,
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--calendar", metavar="URL", help="the calendar collection's URL")
    where.add_argument(
        "--calendar-name",
        metavar="NAME",
        help="the calendar with this display name (or last path segment), found from --server",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="with --calendar-name: the CalDAV server's address (e.g. https://cloud.example.org) or your e-mail address",
    )
    add_account_options(parser)
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--session", dest="sessions", nargs="+", action="extend", metavar="ID")
    chosen.add_argument("--picks", metavar="TOKEN", help="the sessions picked under this token")
    parser.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")
    parser.add_argument("--on-conflict", choices=("keep", "overwrite"), default="keep")
    parser.add_argument(
        "--wait",
        type=float,
        default=SyncOptions().lock_wait,
        metavar="SECONDS",
        help="how long to wait while another sync holds the calendar (default %(default)g; then exit 4)",
    )
    add_db_option(parser)
    # The events then link to the sessions' pages as the feeds of `serve --base-url` do: with the
    # same options, a pushed event is the same bytes as the subscribed one.
    add_base_url_option(parser)
    add_default_option(parser)
    parser.set_defaults(run=run)


def add_account_options(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """--username, --password-env | --password-file and --allow-private, as push and
    `caldav calendars` share them."""
    parser.add_argument("--username", required=required, help="account name (often your e-mail address)")
    secret = parser.add_mutually_exclusive_group(required=required)
    secret.add_argument(
        "--password-env",
        metavar="VAR",
        help="read the (app) password from this variable",
    )
    secret.add_argument("--password-file", metavar="FILE", help="read the (app) password from this file")
    parser.add_argument(
        "--allow-private",
        action="store_true",
        help="allow a calendar on a loopback or private address (e.g. your own server at home)",
    )


def calendar_url(args: argparse.Namespace, password: Password | None) -> str:
    """--calendar, or the URL of the calendar --calendar-name names on --server."""
    if args.calendar_name is None:
        return str(args.calendar)
    if args.server is None:
        raise NoSuchCalendar("--calendar-name needs --server URL, the address to find the calendars at")
    found = discover(args.server, args.username, password, allow_private=args.allow_private)
    return choose(found.calendars, args.calendar_name).url


def read_password(args: argparse.Namespace) -> Password | None:
    if args.password_env:
        value = os.environ.get(args.password_env)
        if value is None:
            raise PasswordUnavailable(f"environment variable {args.password_env} is not set")
        return Password(value)
    if args.password_file:
        try:
            lines = Path(args.password_file).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise PasswordUnavailable(f"cannot read password file {args.password_file}: {exc.strerror}") from None
        return Password(lines[0] if lines else "")
    return None


def run(args: argparse.Namespace) -> int:
    password = read_password(args)
    target = Target(calendar_url(args, password), args.username, password)
    selection = PickToken(args.picks) if args.picks is not None else SessionIds(tuple(args.sessions))
    options = SyncOptions(
        overwrite=args.on_conflict == "overwrite",
        retry=RETRY,
        allow_private=args.allow_private,
        lock_wait=max(args.wait, 0.0),
        # Short: the heartbeat renews it while the run works, and a run killed on another
        # machine that shares the store holds the calendar only this long.
        lock_ttl=lock.TTL.total_seconds(),
    )
    with Store.open(args.db) as store:
        calendars = _calendars(store, selection, args.base_url, args.default)
        if args.dry_run:
            found = service.preview(store, target, selection, options=options, base_url=calendars)
            for line in describe(found):
                print(safe(line))
            return 0
        try:
            result = service.sync(
                store,
                target,
                selection,
                options=options,
                base_url=calendars,
                progress=_progress,
                waiting=_waiting,
            )
        except CalendarBusy as exc:
            print(safe(f"confcal push: calendar busy: {exc}"), file=sys.stderr)
            return BUSY
    report(result)
    return CONFLICTS if result.counts.conflicts else 0


def _calendars(
    store: Store, selection: PickToken | SessionIds, base_url: str | None, default: str | None
) -> str | None:
    """Where the events link (`links.served_calendar_base`) for the conference of `selection`: the pick
    set's, else the store's default. An unknown token is the service's error to report."""
    if base_url is None:
        return None
    picks = PickStore(store.engine).get(selection.token) if isinstance(selection, PickToken) else None
    conference = picks.conference if picks is not None else store.default_conference()
    return None if conference is None else served_calendar_base(base_url, conference, default, store)


def describe(found: service.Preview) -> list[str]:
    """The dry-run plan: one line per change, then the counts."""
    actions, titles = found.actions, found.titles
    lines = [f"{a.verb} {uid_of(a)}  {titles.get(uid_of(a), '')}".rstrip() for a in actions if not isinstance(a, Keep)]
    counts = {verb: sum(1 for a in actions if a.verb == verb) for verb in ("create", "update", "delete", "conflict")}
    unchanged = sum(1 for a in actions if a.verb in ("keep", "forget"))
    lines.append(
        f"plan: create {counts['create']}, update {counts['update']}, delete {counts['delete']}, "
        f"unchanged {unchanged}, conflicts {counts['conflict']} (dry run, nothing written)"
    )
    return lines


def _progress(step: service.Step) -> None:
    print(
        safe(f"[{step.done}/{step.total}] {step.outcome} {step.uid}  {step.title}".rstrip()),
        file=sys.stderr,
    )


def _waiting(line: str) -> None:
    print(safe(f"waiting: {line}"), file=sys.stderr, flush=True)


def report(result: service.SyncResult) -> None:
    for conflict in result.conflicts:
        print(safe(f"conflict: {conflict}"), file=sys.stderr)
    if result.checked_writes:
        print(
            "note: this server ignores preconditions; confcal checks each object before changing it",
            file=sys.stderr,
        )
    print(result.line())
