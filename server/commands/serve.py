"""`confcal serve`: the subscription server (Starlette on granian) for the schedules in the store.

Every setting can also come from the environment or a TOML file (`--config`; docs/configuration.md
lists them all). `--workers N` starts N server processes on one port, each
building its own app from the same settings (server.web.factory); they share only the store.
What must happen once per serve happens here, in the process that starts them, before they
start: the demo seed and the background jobs (refreshing `confcal source` sources, syncing
attached CalDAV calendars; `--no-jobs` leaves them to `confcal worker` processes). The jobs run as threads of this process, which with
several workers is granian's supervisor: one consumer per serve, never one per worker (and were
there several, as with `confcal worker` processes, each source is claimed by one at a time).

The demo conference is seeded with `--demo` into a store without a schedule; by default only an
empty SQLite store with no sources gets it, so `pip install . && confcal serve` shows something
while a production store (PostgreSQL, or one with sources to fetch) is never seeded by accident.

A running server picks up a later `confcal ingest` within a few seconds (each process polls the
store's version), without a restart. Without --base-url, links follow the request's Host, so
only the names the server was started for are answered (localhost, 127.0.0.1, ::1, the --host
address and every --allowed-host); other Host values get 400. Behind a reverse proxy,
--trusted-proxy names it so the client address is taken from its X-Forwarded-For.

A port another process already listens on is refused (one line, exit 1): granian's workers
share their port through SO_REUSEPORT, so a second serve on it would otherwise start quietly
and the kernel would split the requests between the two servers and their stores. With
--reuse-port the serve shares the port on purpose (e.g. to start a new version beside the old
one, then stop the old).

The store file is checked first (server.store.integrity: SQLite reads every page, a third of a
second for a thousand conferences), in a thread, while the rest of the starting process's code
loads: this module loads the store, the jobs and the web app's modules only in `run`, once the
check has started (tests/server/commands/test_serve.py keeps its own imports light).
"""

from __future__ import annotations

import argparse
import errno
import multiprocessing
import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from server.commands import settings
from server.config import add_options, resolve
from server.errors import ServerError
from server.logs import log_config
from server.metrics import MULTIPROC_ENV
from server.store import integrity
from server.web.app_settings import FACTORY, SETTINGS_ENV, AppSettings

if TYPE_CHECKING:
    from server.store import Store

# glibc's setting of the size from which a block is mapped on its own (malloc(3), mallopt).
MMAP_THRESHOLD_ENV = "MALLOC_MMAP_THRESHOLD_"
MMAP_THRESHOLD = 128 * 1024  # glibc's own default, before it raises it


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="serve the calendar feeds, API and index over HTTP",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_options(parser, settings.SERVE)
    parser.add_argument(
        "--reuse-port",
        action="store_true",
        help="share the port with a server already listening on it (the kernel splits the connections "
        "between them); without it, a port in use is refused",
    )
    parser.set_defaults(run=run)


class PortInUse(ServerError):
    """Another process listens on the port `confcal serve` was asked to use."""


def check_port_free(host: str, port: int) -> None:
    """Bind the address once without SO_REUSEPORT: that fails while any process listens on it.
    SO_REUSEADDR is set so the connections a stopped server left in TIME_WAIT do not count."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServerError(f"cannot listen on {host}: {exc.strerror}") from None
    family, kind, proto, _, address = found[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortInUse(
                    f"port {port} on {host} is already in use (another confcal serve?): stop it, "
                    "choose another --port, or pass --reuse-port to share the port with it"
                ) from None
            raise ServerError(f"cannot listen on {host} port {port}: {exc.strerror}") from None


def wants_demo(store: Store, demo: bool | None) -> bool:
    """--demo / --no-demo as given; by default only an empty SQLite store without sources."""
    if demo is not None:
        return demo
    if store.engine.dialect.name != "sqlite" or store.version() != 0:
        return False
    from server.store.sources import SourceStore  # not at the top (see the module's docstring)

    return not SourceStore(store.engine).all()


def app_settings(args: argparse.Namespace) -> AppSettings:
    from server.web.guards import default_hosts  # not at the top (see the module's docstring)

    return AppSettings(
        db=args.db,
        base_url=args.base_url,
        default=args.default,
        max_age=args.max_age,
        poll=args.poll,
        allowed_hosts=default_hosts(args.host, tuple(args.allowed_host)),
        pick_burst=args.pick_burst,
        pick_sets_per_hour=args.pick_sets_per_hour,
        render_burst=args.render_burst,
        render_seconds_per_hour=args.render_seconds_per_hour,
        trusted_proxies=tuple(args.trusted_proxy),
    )


@contextmanager
def metrics_folder(workers: int) -> Iterator[None]:
    """Several processes keep their metrics in files of one folder (server.metrics); a folder the
    operator did not name is made here, empty, and removed at the end."""
    if workers == 1 or os.environ.get(MULTIPROC_ENV):
        yield
        return
    folder = tempfile.mkdtemp(prefix="confcal-metrics-")
    os.environ[MULTIPROC_ENV] = folder
    try:
        yield
    finally:
        del os.environ[MULTIPROC_ENV]
        shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace) -> int:
    args = resolve(args, settings.SERVE)
    if not args.reuse_port:
        check_port_free(args.host, args.port)
    # Checked while the store, and the jobs if this serve runs them, load.
    checking = integrity.Check(args.db)
    from server.store import Store
    from server.web.demo import seed_demo

    jobs = _jobs() if args.jobs else None
    checking.verdict()
    with Store.open(args.db) as store:
        if wants_demo(store, args.demo):
            seed_demo(store)
    # The worker processes read their settings from the environment they inherit.
    os.environ[SETTINGS_ENV] = app_settings(args).to_json()
    with metrics_folder(args.workers), Store.open(args.db) as store:
        # Started before the server, in the main thread (see server.jobs.runner.jobs_in_process).
        lease = timedelta(seconds=args.refresh_lease)
        sync = settings.sync_settings(args)
        with jobs(store, lease=lease, sync=sync) if jobs else nullcontext():
            serve_http(args)
    return 0


def _jobs() -> Callable[..., AbstractContextManager[object]]:
    """`jobs_in_process`, loaded (Huey and every job's modules) only for a serve that runs them."""
    from server.jobs import jobs_in_process

    return jobs_in_process


def serve_http(args: argparse.Namespace) -> None:
    """The app on granian, `--workers` processes, until SIGINT or SIGTERM. granian by measurement
    (bench/asgi_servers.py, docs/architecture.md, "Why granian"): with its HTTP in Rust threads it answers more
    requests a second than uvicorn with uvloop and httptools, whose Python protocol code runs
    on the app's one thread."""
    from granian import Granian
    from granian.constants import Interfaces
    from granian.log import LogLevels

    # Workers start from a fresh interpreter, not a fork of this process: its job threads may
    # hold locks (the store's pool, logging) at the moment a fork would copy them.
    multiprocessing.set_start_method("spawn", force=True)
    # glibc raises its mmap threshold to the largest block a process frees (up to 32 MiB); from
    # then on a feed's bytes (tens of megabytes in a large conference) come from the heap, and
    # once freed they stay in the process, which grows with every version it publishes. Fixed,
    # each large block is mapped on its own and given back when freed. The workers read it as
    # they start; one the operator set stands.
    os.environ.setdefault(MMAP_THRESHOLD_ENV, str(MMAP_THRESHOLD))
    Granian(
        FACTORY,
        factory=True,
        interface=Interfaces.ASGI,
        address=args.host,
        port=args.port,
        workers=args.workers,
        log_level=LogLevels(args.log_level),
        log_dictconfig=log_config(args.log_format, args.log_level),
        log_access=False,  # the app writes the access log, without pick tokens
    ).serve()
