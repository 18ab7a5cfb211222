"""`confcal push`: put picked sessions into your own CalDAV calendar and keep them up to date.

Each run states the full set of sessions the calendar should hold from this conference; see
server/caldav/ for the rules. Progress goes to stderr, the summary line to stdout. The password
comes from an environment variable or a file, never the command line, and is never printed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from feeds.ical import uid
from server.caldav.dav import DavStorage
from server.caldav.errors import CalDAVError, PasswordUnavailable
from server.caldav.events import desired_events, select_sessions
from server.caldav.execute import Summary
from server.caldav.plan import Action, Keep, uid_of
from server.caldav.retry import DEFAULT_RETRY, RetryPolicy, with_retry
from server.caldav.state import SyncState
from server.caldav.sync import make_plan, push
from server.commands import add_db_option
from server.commands.terminal import safe
from server.errors import StoreError
from server.store import Store
from server.store.picks import PickStore

# Module-level so tests can run the CLI against a dead port without real backoff sleeps.
RETRY: RetryPolicy = DEFAULT_RETRY


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "push",
        help="push sessions into your own CalDAV calendar",
        description="Create, update and delete events in a CalDAV calendar so it holds exactly the "
        "given sessions. Only events confcal created are ever changed.",
    )
    parser.add_argument(
        "--calendar", required=True, metavar="URL", help="the calendar collection's URL"
    )
    parser.add_argument("--username", help="account name (often your e-mail address)")
    secret = parser.add_mutually_exclusive_group()
    secret.add_argument(
        "--password-env",
        metavar="VAR",
        help="read the (app) password from this variable",
    )
    secret.add_argument(
        "--password-file", metavar="FILE", help="read the (app) password from this file"
    )
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument(
        "--session", dest="sessions", nargs="+", action="extend", metavar="ID"
    )
    chosen.add_argument(
        "--picks", metavar="TOKEN", help="the sessions picked under this token"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the plan, write nothing"
    )
    parser.add_argument("--on-conflict", choices=("keep", "overwrite"), default="keep")
    add_db_option(parser)
    parser.set_defaults(run=run)


def read_password(args: argparse.Namespace) -> str | None:
    if args.password_env:
        value = os.environ.get(args.password_env)
        if value is None:
            raise PasswordUnavailable(
                f"environment variable {args.password_env} is not set"
            )
        return value
    if args.password_file:
        try:
            lines = Path(args.password_file).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise PasswordUnavailable(
                f"cannot read password file {args.password_file}: {exc.strerror}"
            ) from None
        return lines[0] if lines else ""
    return None


def picked_ids(store: Store, token: str, conference: str) -> list[str]:
    """The session ids picked under `token`; the token is a secret, so messages never repeat it."""
    pickset = PickStore(store.engine).get(token)
    if pickset is None:
        raise CalDAVError("no picks are stored under that token in this store")
    if pickset.conference != conference:
        raise CalDAVError(f"those picks are for {pickset.conference}, not for {conference}")
    return list(pickset.sessions)


def run(args: argparse.Namespace) -> int:
    password = read_password(args)
    with Store.open(args.db) as store:
        schedule = store.live()
        if schedule is None:
            raise StoreError(
                "the store holds no schedule yet; run `confcal ingest` first"
            )
        ids = args.sessions
        if args.picks is not None:
            ids = picked_ids(store, args.picks, schedule.conference.slug)
        sessions = select_sessions(schedule, ids)
        desired = desired_events(schedule, sessions)
        titles = {uid(schedule.conference, s): s.title for s in sessions}
        storage = with_retry(
            lambda: DavStorage.connect(args.calendar, args.username, password),
            RETRY,
        )
        try:
            state = SyncState(store.engine, storage.url, scope=schedule.conference.slug)
            if args.dry_run:
                for line in describe(make_plan(storage, state, desired, RETRY), titles):
                    print(safe(line))
                return 0
            summary = push(
                storage,
                state,
                desired,
                overwrite=args.on_conflict == "overwrite",
                retry=RETRY,
                progress=lambda done, total, action, outcome: _progress(
                    done, total, action, outcome, titles
                ),
            )
        finally:
            storage.close()
    report(summary)
    return 0


def describe(actions: list[Action], titles: dict[str, str]) -> list[str]:
    """The dry-run plan: one line per change, then the counts."""
    lines = [
        f"{a.verb} {uid_of(a)}  {titles.get(uid_of(a), '')}".rstrip()
        for a in actions
        if not isinstance(a, Keep)
    ]
    counts = {
        verb: sum(1 for a in actions if a.verb == verb)
        for verb in ("create", "update", "delete", "conflict")
    }
    unchanged = sum(1 for a in actions if a.verb in ("keep", "forget"))
    lines.append(
        f"plan: create {counts['create']}, update {counts['update']}, delete {counts['delete']}, "
        f"unchanged {unchanged}, conflicts {counts['conflict']} (dry run, nothing written)"
    )
    return lines


def _progress(
    done: int, total: int, action: Action, outcome: str, titles: dict[str, str]
) -> None:
    if isinstance(action, Keep):
        return
    uid = uid_of(action)
    print(
        safe(f"[{done}/{total}] {outcome} {uid}  {titles.get(uid, '')}".rstrip()),
        file=sys.stderr,
    )


def report(summary: Summary) -> None:
    for conflict in summary.conflicts:
        print(safe(f"conflict: {conflict}"), file=sys.stderr)
    print(summary.line())
