"""A throwaway DAViCal (Debian's package) for the tests, as a WSGI app dav_server.py can wrap.

DAViCal is PHP on PostgreSQL, so this starts both and proxies to them:
- a PostgreSQL cluster from Debian's binaries (tests/helpers/postgres_cluster.py), its database made by
  DAViCal's own `create-database.sh`, and one user with a plain-text password ("**" prefix, as
  DAViCal's base data stores its admin);
- a copy of DAViCal's `htdocs/` whose `always.php` reads our config instead of
  /etc/davical/config.php (it includes that file by absolute path), with `inc/` and `locale/`
  linked beside it, served by `php -S` on loopback;
- a small WSGI reverse proxy to it, so dav_server.py's counters and cues work as for the others.

DAViCal serves calendars under /caldav.php/USER/. It does not refuse a second object with a UID the
calendar already holds (RFC 4791 section 5.3.2.1 no-uid-conflict), which is why it is here.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from tests.helpers.postgres_cluster import running_postgres

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

DAVICAL = Path("/usr/share/davical")
PREFIX = "/caldav.php"
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade"})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _database(socket_dir: str, user: str, password: str) -> None:
    env = dict(os.environ, PGHOST=socket_dir, PGUSER="postgres")
    admin_password = os.urandom(12).hex()
    subprocess.run(
        [str(DAVICAL / "dba" / "create-database.sh"), "davical", admin_password],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    sql = (
        "INSERT INTO usr (active, email_ok, updated, username, password, fullname, email) "
        f"VALUES (TRUE, current_date, current_date, {_sql_text(user)}, {_sql_text('**' + password)}, "
        f"{_sql_text(user)}, {_sql_text(user + '@example.org')});"
        "INSERT INTO principal (type_id, user_no, displayname, default_privileges) "
        f"SELECT 1, user_no, {_sql_text(user)}, 0::BIT(24) FROM usr WHERE username = {_sql_text(user)};"
    )
    subprocess.run(
        ["psql", "-qXAt", "-v", "ON_ERROR_STOP=1", "-d", "davical", "-c", sql],
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _site(root: Path, socket_dir: str) -> Path:
    """DAViCal's htdocs copied into `root`, reading `root/etc/config.php`."""
    htdocs = root / "htdocs"
    shutil.rmtree(htdocs, ignore_errors=True)
    shutil.copytree(DAVICAL / "htdocs", htdocs, symlinks=True)
    for linked in ("inc", "locale"):
        with contextlib.suppress(FileExistsError):
            (root / linked).symlink_to(DAVICAL / linked)
    (root / "etc").mkdir(exist_ok=True)
    (root / "etc" / "config.php").write_text(
        "<?php\n"
        f'$c->pg_connect[] = "dbname=davical user=davical_app host={socket_dir}";\n'
        '$c->system_name = "confcal test DAViCal";\n'
        "$c->restrict_setup_to_admin = true;\n"
    )
    always = htdocs / "always.php"
    always.write_text(always.read_text().replace("'/etc/davical/", f"'{root / 'etc'}/"))
    return htdocs


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


def _wait_for(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(200):
        if process.poll() is not None:
            raise RuntimeError("php -S exited")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise RuntimeError("php -S did not listen")


def davical_app(root: Path, user: str, password: str) -> Wsgi:
    """Start PostgreSQL and DAViCal for the life of this process; the proxy to them."""
    root.mkdir(parents=True, exist_ok=True)
    postgres = running_postgres()
    url = postgres.__enter__()
    atexit.register(postgres.__exit__, None, None, None)
    socket_dir = parse_qs(urlsplit(url).query)["host"][0]
    _database(socket_dir, user, password)
    htdocs = _site(root, socket_dir)
    port = _free_port()
    php = subprocess.Popen(
        ["php", "-S", f"127.0.0.1:{port}", "-d", "display_errors=stderr"],
        cwd=htdocs,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # Several requests at once: the counting wrapper's owner writes come inside a request.
        env=dict(os.environ, PHP_CLI_SERVER_WORKERS="4"),
        start_new_session=True,  # its workers outlive a terminated master: stop the group
    )
    atexit.register(_stop_group, php)
    _wait_for(port, php)
    return _proxy(port)


def _proxy(port: int) -> Wsgi:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        headers = {
            key[5:].replace("_", "-").title(): value
            for key, value in environ.items()
            if key.startswith("HTTP_") and key not in ("HTTP_CONNECTION", "HTTP_HOST")
        }
        if environ.get("CONTENT_TYPE"):
            headers["Content-Type"] = environ["CONTENT_TYPE"]
        headers["Content-Length"] = str(len(body))
        path = quote(environ.get("PATH_INFO", "/"), safe="/;:@&=+$,!~*'()")
        if environ.get("QUERY_STRING"):
            path += "?" + environ["QUERY_STRING"]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            connection.request(environ["REQUEST_METHOD"], path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        kept = [(k, v) for k, v in response.getheaders() if k.lower() not in _HOP_BY_HOP]
        kept = [(k, v) for k, v in kept if k.lower() != "content-length"]
        kept.append(("Content-Length", str(len(data))))
        start_response(f"{response.status} {response.reason}", kept)
        return [data]

    return app
