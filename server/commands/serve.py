"""`confcal serve`: the subscription server (Starlette on uvicorn) for the schedule in the store.

An empty store is seeded with the built-in demo conference. A running server picks up a later
`confcal ingest` within a few seconds (it polls the store's version), without a restart. It also
runs the background jobs (refreshing `confcal source` sources) unless `--no-jobs` leaves them to
`confcal worker` processes.

Without --base-url, links follow the request's Host, so only the names the server was started
for are answered (localhost, 127.0.0.1, ::1, the --host address and every --allowed-host);
other Host values get 400. Behind a reverse proxy, --trusted-proxy names it so the client
address (for the pick-set rate limit and the log) is taken from its X-Forwarded-For; from
anyone else that header is ignored.
"""

from __future__ import annotations

import argparse
import copy
import ipaddress
from contextlib import nullcontext
from typing import Any

import uvicorn
import uvicorn.config

from server.app import create_app
from server.app.demo import seed_demo
from server.app.guards import Guards, default_hosts
from server.app.hosts import allowed_entries
from server.app.links import checked_base_url
from server.app.params import BadPath, conference_segment
from server.app.ratelimit import DEFAULT_RATE, Rate
from server.commands import add_db_option
from server.jobs import jobs_in_process
from server.store import Store


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="serve the calendar feeds, API and index over HTTP",
        description=__doc__,
    )
    add_db_option(parser)
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=_port, default=8080, help="port to listen on (default: 8080)"
    )
    add_base_url_option(parser)
    add_default_option(parser)
    parser.add_argument(
        "--max-age",
        type=_non_negative_int,
        default=300,
        metavar="SECONDS",
        help="Cache-Control max-age of every response (default: 300)",
    )
    parser.add_argument(
        "--poll",
        type=_positive_float,
        default=2.0,
        metavar="SECONDS",
        help="how often to check the store for a new ingest (default: 2)",
    )
    parser.add_argument(
        "--no-jobs",
        dest="jobs",
        action="store_false",
        help="run no background jobs (source refresh) here: `confcal worker` processes run them",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        type=_host_name,
        default=[],
        metavar="NAME",
        help="also answer requests for this Host name (NAME or NAME:PORT; repeatable); "
        "ignored with --base-url, which makes links independent of Host",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        type=_proxy,
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy (IP address or network) whose X-Forwarded-For names the client "
        "(repeatable; default: none, the connection's address is the client)",
    )
    parser.add_argument(
        "--pick-sets-per-hour",
        type=_positive_float,
        default=DEFAULT_RATE.per_hour,
        metavar="N",
        help=f"pick sets one client address may create per hour after the first "
        f"--pick-burst (default: {DEFAULT_RATE.per_hour:g})",
    )
    parser.add_argument(
        "--pick-burst",
        type=_positive_int,
        default=DEFAULT_RATE.burst,
        metavar="N",
        help=f"pick sets one client address may create at once (default: {DEFAULT_RATE.burst})",
    )
    parser.set_defaults(run=run)


def add_base_url_option(parser: argparse.ArgumentParser) -> None:
    """--base-url, shared with `confcal build` so both produce the same bytes."""
    parser.add_argument(
        "--base-url",
        type=_base_url,
        default=None,
        metavar="URL",
        help="public URL of the site, e.g. https://cal.example.org, for absolute and webcal:// links",
    )


def add_default_option(parser: argparse.ArgumentParser) -> None:
    """--default, shared with `confcal build`: the conference the root paths serve."""
    parser.add_argument(
        "--default",
        type=_conference_slug,
        default=None,
        metavar="SLUG",
        help="conference served at the root paths (default: the one ingested first)",
    )


def _conference_slug(value: str) -> str:
    try:
        return conference_segment(value)
    except BadPath as exc:
        raise argparse.ArgumentTypeError(f"not a conference slug: {value!r}") from exc


def _base_url(value: str) -> str:
    try:
        return checked_base_url(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _port(value: str) -> int:
    port = _non_negative_int(value)
    if port > 65535:
        raise argparse.ArgumentTypeError(f"not a TCP port: {value!r}")
    return port


def _non_negative_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"not a non-negative integer: {value!r}")
    return number


def _host_name(value: str) -> str:
    try:
        allowed_entries([value])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return value


def _proxy(value: str) -> str:
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an IP address or network: {value!r}") from exc
    return value


def _positive_int(value: str) -> int:
    number = _non_negative_int(value)
    if number == 0:
        raise argparse.ArgumentTypeError(f"not a positive integer: {value!r}")
    return number


def _positive_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not number > 0:  # also rejects NaN
        raise argparse.ArgumentTypeError(f"not a positive number: {value!r}")
    return number


def log_config() -> dict[str, Any]:
    """uvicorn's logging plus confcal's loggers. The app writes the access log itself
    (server.app.access_log, without pick tokens), so uvicorn's own is off."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config["handlers"]["confcal_access"] = {
        "class": "logging.StreamHandler",
        "formatter": "default",
        "stream": "ext://sys.stdout",
    }
    config["loggers"]["confcal"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    config["loggers"]["confcal.access"] = {
        "handlers": ["confcal_access"],
        "level": "INFO",
        "propagate": False,
    }
    return config


def run(args: argparse.Namespace) -> int:
    store = Store.open(args.db)
    guards = Guards(
        allowed_hosts=default_hosts(args.host, tuple(args.allowed_host)),
        pick_rate=Rate(burst=args.pick_burst, per_hour=args.pick_sets_per_hour),
    )
    app = create_app(
        store,
        base_url=args.base_url,
        max_age=args.max_age,
        poll_interval=args.poll,
        seed=lambda: seed_demo(store),
        default=args.default,
        guards=guards,
    )
    try:
        # Started before uvicorn, in the main thread (see server.jobs.runner.jobs_in_process).
        with jobs_in_process(store) if args.jobs else nullcontext():
            uvicorn.run(
                app,
                host=args.host,
                port=args.port,
                log_level="info",
                log_config=log_config(),
                access_log=False,
                # uvicorn trusts X-Forwarded-For from 127.0.0.1 unless told otherwise.
                proxy_headers=bool(args.trusted_proxy),
                forwarded_allow_ips=args.trusted_proxy or None,
            )
    finally:
        store.close()
    return 0
