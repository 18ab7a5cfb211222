"""The settings of `confcal serve` and `confcal worker` (server.config says how they are read), and
the checks their values go through, shared by flags, environment variables and the TOML file."""

from __future__ import annotations

import argparse
import ipaddress
from datetime import timedelta
from typing import TYPE_CHECKING

from server.commands.values import base_url as base_url  # re-exported: every check in one place
from server.commands.values import conference_slug as conference_slug
from server.config import Setting
from server.jobs.limits import PER_HOST
from server.logs import FORMATS, LEVELS
from server.web.ratelimit import DEFAULT_RATE, RENDER_RATE

if TYPE_CHECKING:
    from server.jobs.caldav_sync import SyncSettings


def port(value: str) -> int:
    number = non_negative_int(value)
    if number > 65535:
        raise argparse.ArgumentTypeError(f"not a TCP port: {value!r}")
    return number


def non_negative_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"not a non-negative integer: {value!r}")
    return number


def positive_int(value: str) -> int:
    number = non_negative_int(value)
    if number == 0:
        raise argparse.ArgumentTypeError(f"not a positive integer: {value!r}")
    return number


def positive_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not number > 0:  # also rejects NaN
        raise argparse.ArgumentTypeError(f"not a positive number: {value!r}")
    return number


def host_name(value: str) -> str:
    # Loaded when a host name is checked, not with the settings every command reads: the allow
    # list lives with its middleware (Starlette).
    from server.web.hosts import allowed_entries

    try:
        allowed_entries([value])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return value


def proxy(value: str) -> str:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an IP address or network: {value!r}") from exc
    return value


def sync_settings(args: argparse.Namespace) -> SyncSettings:
    """The CalDAV sync settings of `serve` and `worker` (resolved arguments with CALDAV_PER_HOST,
    CALDAV_SYNC_LEASE, BASE_URL and DEFAULT) as the jobs take them."""
    # Here, not with the module: the jobs bring SQLAlchemy (server.jobs.limits says the default).
    from server.jobs.caldav_sync import SyncSettings

    return SyncSettings(
        per_host=args.caldav_per_host,
        lease=timedelta(seconds=args.caldav_sync_lease),
        base_url=args.base_url,
        default=args.default,
    )


def _choice(options: tuple[str, ...]) -> object:
    def check(value: str) -> str:
        if value.lower() not in options:
            raise argparse.ArgumentTypeError(f"not one of {', '.join(options)}: {value!r}")
        return value.lower()

    return check


DB = Setting(
    "db",
    "CONFCAL_DB",
    "--db",
    None,
    help="the store: a SQLite file path or a SQLAlchemy URL",
    metavar="PATH_OR_URL",
    shown_default="`confcal.sqlite` in the user data directory",
)
LOG_FORMAT = Setting(
    "log_format",
    "CONFCAL_LOG_FORMAT",
    "--log-format",
    "text",
    _choice(FORMATS),  # type: ignore[arg-type]
    help="log lines as `text` or `json` (one object a line, for log collectors)",
    metavar="FORMAT",
)
REFRESH_LEASE = Setting(
    "refresh_lease",
    "CONFCAL_REFRESH_LEASE",
    "--refresh-lease",
    600,
    positive_int,
    help="how long one source refresh may hold its source, in seconds: a job process killed "
    "mid-refresh delays that source this long before another process retries it",
    metavar="SECONDS",
)
CALDAV_PER_HOST = Setting(
    "caldav_per_host",
    "CONFCAL_CALDAV_PER_HOST",
    "--per-host",
    PER_HOST,
    positive_int,
    help="CalDAV syncs at once against one calendar server, counted across every job process",
    metavar="N",
)
CALDAV_SYNC_LEASE = Setting(
    "caldav_sync_lease",
    "CONFCAL_CALDAV_SYNC_LEASE",
    "--sync-lease",
    60,
    positive_int,
    help="how long a CalDAV sync of a job process that died keeps its calendar from the others, in "
    "seconds (renewed while the sync runs)",
    metavar="SECONDS",
)
LOG_LEVEL = Setting(
    "log_level",
    "CONFCAL_LOG_LEVEL",
    "--log-level",
    "info",
    _choice(LEVELS),  # type: ignore[arg-type]
    help="least severe level logged (`debug`, `info`, `warning`, `error`)",
    metavar="LEVEL",
)

# `worker` takes both too: the events a sync pushes link where the servers' feeds link them.
BASE_URL = Setting(
    "base_url",
    "CONFCAL_BASE_URL",
    "--base-url",
    None,
    base_url,
    help="public URL of the site (absolute and webcal:// links, the pages events link to; serve then answers any Host header)",
    metavar="URL",
)
DEFAULT = Setting(
    "default",
    "CONFCAL_DEFAULT",
    "--default",
    None,
    conference_slug,
    help="conference served at the root paths",
    metavar="SLUG",
    shown_default="the one ingested first",
)

SERVE = (
    DB,
    Setting("host", "CONFCAL_HOST", "--host", "127.0.0.1", help="address to listen on", metavar="ADDRESS"),
    Setting("port", "CONFCAL_PORT", "--port", 8080, port, help="port to listen on", metavar="PORT"),
    Setting(
        "workers",
        "CONFCAL_WORKERS",
        "--workers",
        1,
        positive_int,
        help="server processes answering on the port, each with its own app (state is shared only through the store)",
        metavar="N",
    ),
    BASE_URL,
    DEFAULT,
    Setting(
        "max_age",
        "CONFCAL_MAX_AGE",
        "--max-age",
        300,
        non_negative_int,
        help="Cache-Control max-age of every response, in seconds",
        metavar="SECONDS",
    ),
    Setting(
        "poll",
        "CONFCAL_POLL",
        "--poll",
        # A new ingest is served within a second of its commit; a poll is one indexed max() on
        # the versions table, cheap.
        0.5,
        positive_float,
        help="how often each process checks the store for a new ingest, in seconds",
        metavar="SECONDS",
    ),
    Setting(
        "jobs",
        "CONFCAL_JOBS",
        "--jobs",
        True,
        kind="bool",
        no_flag="--no-jobs",
        help="run the background jobs (source refresh, CalDAV sync) in this serve, once for all its workers; "
        "off when `confcal worker` processes run them",
    ),
    Setting(
        "demo",
        "CONFCAL_DEMO",
        "--demo",
        None,
        kind="bool",
        no_flag="--no-demo",
        help="seed the built-in demo conference into a store without a schedule",
        shown_default="on for an empty SQLite store with no sources, else off",
    ),
    Setting(
        "allowed_host",
        "CONFCAL_ALLOWED_HOSTS",
        "--allowed-host",
        [],
        host_name,
        kind="list",
        help="also answer requests for this Host (NAME or NAME:PORT; repeatable, comma-separated in the environment); "
        "ignored with a base URL",
        metavar="NAME",
    ),
    Setting(
        "trusted_proxy",
        "CONFCAL_TRUSTED_PROXIES",
        "--trusted-proxy",
        [],
        proxy,
        kind="list",
        help="reverse proxy (IP address or network) whose X-Forwarded-For names the client (repeatable)",
        metavar="ADDRESS",
    ),
    Setting(
        "pick_sets_per_hour",
        "CONFCAL_PICK_SETS_PER_HOUR",
        "--pick-sets-per-hour",
        DEFAULT_RATE.per_hour,
        positive_float,
        help="pick sets one client address may create per hour after the first burst (per process)",
        metavar="N",
        shown_default=f"{DEFAULT_RATE.per_hour:g}",
    ),
    Setting(
        "pick_burst",
        "CONFCAL_PICK_BURST",
        "--pick-burst",
        DEFAULT_RATE.burst,
        positive_int,
        help="pick sets one client address may create at once",
        metavar="N",
    ),
    Setting(
        "render_seconds_per_hour",
        "CONFCAL_RENDER_SECONDS_PER_HOUR",
        "--render-seconds-per-hour",
        RENDER_RATE.per_hour,
        positive_float,
        help="CPU seconds an hour one client address may spend on searches and filtered feeds "
        "not made yet, after the first burst (per process)",
        metavar="SECONDS",
        shown_default=f"{RENDER_RATE.per_hour:g}",
    ),
    Setting(
        "render_burst",
        "CONFCAL_RENDER_BURST",
        "--render-burst",
        RENDER_RATE.burst,
        positive_float,
        help="CPU seconds one client address may spend at once on searches and filtered feeds not made yet",
        metavar="SECONDS",
        shown_default=f"{RENDER_RATE.burst:g}",
    ),
    REFRESH_LEASE,
    CALDAV_PER_HOST,
    CALDAV_SYNC_LEASE,
    LOG_FORMAT,
    LOG_LEVEL,
)

WORKER = (
    DB,
    Setting(
        "threads",
        "CONFCAL_WORKER_THREADS",
        "--threads",
        2,
        positive_int,
        help="`confcal worker`: jobs to run at once",
        metavar="N",
    ),
    REFRESH_LEASE,
    CALDAV_PER_HOST,
    CALDAV_SYNC_LEASE,
    BASE_URL,
    DEFAULT,
    LOG_FORMAT,
    LOG_LEVEL,
)

# docs/configuration.md's table: every setting once, in this order.
ALL = (*SERVE, WORKER[1])
