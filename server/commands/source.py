"""`confcal source add|list|remove`: schedule sources the running server keeps fresh.

A source is the set of URLs that together make one snapshot (like a Sched site's list and detail
pages). `confcal serve` (or `confcal worker` processes sharing its database) refreshes each one on
its interval with conditional GET, and ingests a changed snapshot under the rules of
`confcal ingest`; a refresh that is refused leaves the live schedule as it was, and `source list`
shows why.

A source behind a login: `--username NAME` with `--password-env VARIABLE` or `--password-file PATH`
(HTTP Basic auth), and/or `--header-env 'Header-Name=VARIABLE'` (e.g. an API key). The secrets are
read from the environment or the file, never from the command line (which every user of the
machine sees in `ps`), stored encrypted like CalDAV passwords, and sent only to the source's own
URLs' hosts. A URL with `user:password@` in it still works, as it always has: the login is taken
out of the URL and stored the same way, with a note that the password was on the command line.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import unquote, urlsplit

from feeds import outbound
from feeds.sources import documents
from server.commands import add_db_option
from server.commands.terminal import safe_lines
from server.crypto import Password
from server.errors import ServerError
from server.jobs import jobs_for
from server.store import Store
from server.store.sources import Source, SourceLogin, SourceSpec, SourceStore

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_INTERVAL = re.compile(r"(\d+)([smhd])")
MAX_URLS = documents.MAX_FILES


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "source",
        help="add, list or remove schedule sources the server keeps fresh",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    add = actions.add_parser("add", help="add a source (one snapshot, from one or more URLs)")
    add_db_option(add)
    add.add_argument("urls", metavar="URL", nargs="+", help="http(s) URL of a schedule page")
    add.add_argument("--conference", metavar="SLUG", default=None, help="file the schedule under this conference slug")
    add.add_argument("--tz", metavar="ZONE", default=None, help="IANA time zone, when the pages do not settle it")
    add.add_argument("--format", metavar="NAME", default=None, help="read the pages as this format")
    add.add_argument(
        "--every",
        metavar="INTERVAL",
        type=interval,
        default=timedelta(minutes=15),
        help="how often to refresh: a number and s, m, h or d (default: 15m)",
    )
    add.add_argument(
        "--allow-private",
        action="store_true",
        help="allow URLs on loopback or private addresses (refused by default)",
    )
    add.add_argument("--username", metavar="NAME", help="user name for HTTP Basic auth at the source's host")
    secret = add.add_mutually_exclusive_group()
    secret.add_argument("--password-env", metavar="VARIABLE", help="read the Basic auth password from this variable")
    secret.add_argument("--password-file", metavar="PATH", help="read the Basic auth password from this file")
    add.add_argument(
        "--header-env",
        metavar="HEADER=VARIABLE",
        action="append",
        default=[],
        help="send this header with the value of this environment variable (e.g. an API key); repeatable",
    )
    add.set_defaults(run=run_add)

    listing = actions.add_parser("list", help="list sources: last fetch, result, next run")
    add_db_option(listing)
    listing.set_defaults(run=run_list)

    remove = actions.add_parser("remove", help="stop refreshing a source (its schedule stays)")
    add_db_option(remove)
    remove.add_argument("id", metavar="ID", type=int, help="the source's id, as `source list` shows it")
    remove.set_defaults(run=run_remove)


def interval(value: str) -> timedelta:
    match = _INTERVAL.fullmatch(value.strip())
    if match is None or int(match[1]) == 0:
        raise argparse.ArgumentTypeError(f"not an interval such as 30s, 15m, 2h or 1d: {value!r}")
    return timedelta(seconds=int(match[1]) * UNITS[match[2]])


def format_interval(value: timedelta) -> str:
    seconds = int(value.total_seconds())
    unit = next(u for u in ("d", "h", "m", "s") if seconds % UNITS[u] == 0)
    return f"{seconds // UNITS[unit]}{unit}"


class NotASourceURL(ServerError):
    """`source add` was given something the server cannot fetch."""


class BadCredentials(ServerError):
    """`source add` was given credentials it cannot use, or in a place they would leak from."""


class NoSuchSource(ServerError):
    """`source remove` named an id that is not registered."""


def run_add(args: argparse.Namespace) -> int:
    for url in args.urls:
        if not url.startswith(("http://", "https://")):
            raise NotASourceURL(f"{outbound.redact(url)}: the server fetches a source itself: give http(s) URLs")
    if len(args.urls) > MAX_URLS:
        raise NotASourceURL(f"{len(args.urls)} URLs; the limit is {MAX_URLS}")
    login = source_login(args)
    given = next((urlsplit(url) for url in args.urls if outbound.redact(url) != url), None)
    if given is not None:
        # Kept working rather than refused: scripts that register sources this way go on working,
        # and the URL the store keeps holds no userinfo either way.
        if login is not None:
            raise BadCredentials("give the login in the URL or with --username and --password-*, not both")
        login = SourceLogin(unquote(given.username or ""), Password(unquote(given.password or "")))
        print(
            "confcal source add: the login in the URL is stored encrypted, apart from the URL; the command "
            "line is visible in `ps`: pass the password with --password-env or --password-file instead",
            file=sys.stderr,
        )
    spec = SourceSpec(
        urls=tuple(outbound.without_userinfo(url) for url in args.urls),
        interval=args.every,
        conference=args.conference,
        tz=args.tz,
        format=args.format,
        allow_private=args.allow_private,
    )
    with Store.open(args.db) as store:
        source = SourceStore(store.engine).add(spec, datetime.now(UTC), login)
        jobs = jobs_for(store)
        try:
            jobs.queue_refresh(source)  # a running server starts on it within seconds
        finally:
            jobs.queue.storage.close()
    print(f"source {source.id}: {len(spec.urls)} URL(s), every {format_interval(spec.interval)}")
    return 0


def source_login(args: argparse.Namespace) -> SourceLogin | None:
    """The credentials the options name, read from the environment or a file."""
    password: Password | None = None
    if args.password_env:
        password = Password(_variable(args.password_env, "--password-env"))
    elif args.password_file:
        try:
            with open(args.password_file, encoding="utf-8") as stream:
                text = stream.read().removesuffix("\n").removesuffix("\r")
        except (OSError, UnicodeError) as exc:
            raise BadCredentials(f"{args.password_file}: cannot read the password file: {exc}") from None
        if not text:
            raise BadCredentials(f"{args.password_file}: the password file is empty")
        password = Password(text)
    if (password is None) != (args.username is None):
        raise BadCredentials("Basic auth needs both --username and --password-env or --password-file")
    headers: list[tuple[str, Password]] = []
    for item in args.header_env:
        name, sep, variable = item.partition("=")
        if not sep or not _HEADER_NAME.fullmatch(name.strip()) or not variable.strip():
            raise BadCredentials(f"--header-env {item!r}: give HEADER=VARIABLE, e.g. X-Api-Key=SCHED_API_KEY")
        headers.append((name.strip(), Password(_variable(variable.strip(), "--header-env"))))
    if password is None and not headers:
        return None
    return SourceLogin(args.username, password or Password(""), tuple(headers))


# An HTTP field name (RFC 9110 §5.1: a token).
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def _variable(name: str, option: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise BadCredentials(f"{option} {name}: that environment variable is not set or empty")
    if "\n" in value or "\r" in value:
        raise BadCredentials(f"{option} {name}: the value holds a line break")
    return value


def run_list(args: argparse.Namespace) -> int:
    with Store.open(args.db) as store:
        table = SourceStore(store.engine)
        found, logins = table.all(), table.with_login()
    if not found:
        print("no sources")
    for source in found:
        print(safe_lines(describe(source, login=source.id in logins)))
    return 0


def run_remove(args: argparse.Namespace) -> int:
    with Store.open(args.db) as store:
        removed = SourceStore(store.engine).remove(args.id)
    if not removed:
        raise NoSuchSource(f"no source {args.id} (`confcal source list` shows them)")
    print(f"source {args.id} removed; the schedule it brought in stays")
    return 0


def describe(source: Source, *, login: bool = False) -> list[str]:
    """The lines `source list` prints for one source; `login`: it has credentials stored, which
    its URLs show as `***@`, never their values."""
    spec = source.spec
    facts = [f"every {format_interval(spec.interval)}"]
    facts += [
        f"{label} {value}"
        for label, value in (("conference", spec.conference), ("tz", spec.tz), ("format", spec.format))
        if value
    ]
    if spec.allow_private:
        facts.append("private addresses allowed")
    if login:
        facts.append("credentials stored encrypted")
    lines = [f"{source.id}: {', '.join(facts)}"]
    lines += [f"  {outbound.redact(url.replace('://', '://***@', 1) if login else url)}" for url in spec.urls]
    if source.last_fetch is None or source.result is None:
        lines.append("  last fetch: never")
    else:
        first, *more = (source.message or "").splitlines() or [""]
        lines.append(f"  last fetch: {_when(source.last_fetch)}: {source.result.value}: {first}")
        lines += [f"    {line.strip()}" for line in more]  # e.g. each defect of a refused snapshot
    lines.append(f"  next run: {_when(source.next_run)}")
    return lines


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
