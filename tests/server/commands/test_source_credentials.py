"""Source credentials: never in argv nor in a URL, stored encrypted (the password's bytes are
nowhere in the SQLite files), sent as Basic auth to the source's own host and to no other."""

from __future__ import annotations

import base64
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from server.cli import main
from server.jobs.refresh import run_refresh
from server.store import Store
from server.store.sources import Outcome, SourceStore
from tests.helpers.serve_process import confcal_command
from tests.helpers.threaded_server import in_thread

PASSWORD = "pw-7c1f0e93d2-secret"
API_KEY = "key-5b2d8a61-secret"
NOW = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
ICS = b"""BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//test//auth//EN\r
X-WR-CALNAME:Auth Con\r
BEGIN:VEVENT\r
UID:one@test\r
SUMMARY:Behind a login\r
DTSTART:20250301T100000Z\r
DTEND:20250301T103000Z\r
END:VEVENT\r
END:VCALENDAR\r
"""


class Recorded:
    """What a loopback server saw: (path, Authorization, X-Api-Key) per request."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str | None, str | None]] = []
        self.url = ""


@contextmanager
def http_server(*, login: tuple[str, str] | None, redirect_to: str | None = None) -> Iterator[Recorded]:
    """Serves ICS at /schedule.ics, behind Basic auth `login` if given; /moved redirects to
    `redirect_to` (another origin)."""
    recorded = Recorded()
    expected = None if login is None else "Basic " + base64.b64encode(":".join(login).encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            authorization = self.headers.get("Authorization")
            recorded.seen.append((self.path, authorization, self.headers.get("X-Api-Key")))
            if expected is not None and authorization != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="schedule"')
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif self.path == "/moved" and redirect_to:
                self.send_response(302)
                self.send_header("Location", redirect_to)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self.send_response(200)
                self.send_header("Content-Type", "text/calendar")
                self.send_header("Content-Length", str(len(ICS)))
                self.end_headers()
                self.wfile.write(ICS)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    recorded.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    with in_thread(httpd):
        yield recorded


def source_add(db: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`confcal source add` as a real process (its argv is what `ps` would show)."""
    return subprocess.run(
        [*confcal_command(), "source", "add", "--db", db, "--allow-private", "--tz", "UTC", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def store_bytes(db: str) -> bytes:
    with sqlite3.connect(db) as conn:  # the WAL folded into the file, so the file is all there is
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return b"".join(p.read_bytes() for p in sorted(Path(db).parent.glob(Path(db).name + "*")))


def test_the_password_is_not_in_the_store_file_nor_in_source_list(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    (tmp_path / "password").write_text(PASSWORD + "\n", encoding="utf-8")

    added = source_add(
        db,
        "https://sched.example.org/list",
        "--username",
        "organiser",
        "--password-file",
        str(tmp_path / "password"),
        "--header-env",
        "X-Api-Key=SCHED_KEY",
        env={"SCHED_KEY": API_KEY},
    )
    listed = subprocess.run([*confcal_command(), "source", "list", "--db", db], capture_output=True, text=True)

    content = store_bytes(db)
    assert (added.returncode, added.stderr) == (0, "")
    assert (PASSWORD.encode() in content, API_KEY.encode() in content) == (False, False)
    assert listed.stdout.splitlines()[:2] == [
        "1: every 15m, tz UTC, private addresses allowed, credentials stored encrypted",
        "  https://***@sched.example.org/list",
    ]


def test_a_url_with_userinfo_is_stored_without_it_and_the_user_told(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")

    added = source_add(db, f"https://organiser:{PASSWORD}@sched.example.org/list")

    with Store.open(db) as store:
        table = SourceStore(store.engine)
        (source,) = table.all()
        login = table.login(source)
    assert (added.returncode, added.stderr.splitlines()) == (
        0,
        [
            "confcal source add: the login in the URL is stored encrypted, apart from the URL; the command "
            "line is visible in `ps`: pass the password with --password-env or --password-file instead"
        ],
    )
    assert source.spec.urls == ("https://sched.example.org/list",)
    assert login is not None and (login.username, login.password.reveal()) == ("organiser", PASSWORD)
    assert (PASSWORD.encode() in store_bytes(db)) is False


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--username", "organiser"], "Basic auth needs both --username and --password-env or --password-file"),
        (["--username", "u", "--password-env", "UNSET_VARIABLE_FOR_TEST"], "--password-env UNSET_VARIABLE_FOR_TEST"),
        (["--header-env", "X-Api-Key"], "--header-env 'X-Api-Key': give HEADER=VARIABLE"),
    ],
)
def test_unusable_credential_options_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    added = source_add(str(tmp_path / "store.sqlite"), "https://sched.example.org/list", *args)

    (line,) = added.stderr.splitlines()
    assert (added.returncode != 0, line.removeprefix("confcal source: error: ").startswith(message)) == (True, True)


def test_the_refresh_logs_in_to_the_sources_host_only(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    with http_server(login=None) as elsewhere, http_server(login=("organiser", PASSWORD), redirect_to=None) as schedule:
        added = source_add(
            db,
            schedule.url + "/schedule.ics",
            "--username",
            "organiser",
            "--password-env",
            "SOURCE_PASSWORD",
            env={"SOURCE_PASSWORD": PASSWORD},
        )
        with Store.open(db) as store:
            (source,) = SourceStore(store.engine).all()
            done = run_refresh(store, source.id, source.generation, lambda: NOW)
            live = store.live()

    assert added.returncode == 0
    assert done is not None and done.result is Outcome.OK
    assert live is not None and [s.title for s in live.sessions] == ["Behind a login"]
    basic = "Basic " + base64.b64encode(f"organiser:{PASSWORD}".encode()).decode()
    assert schedule.seen == [("/schedule.ics", basic, None)]
    assert elsewhere.seen == []


def test_a_redirect_to_another_host_gets_no_credentials(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    with http_server(login=None) as elsewhere:
        with http_server(login=("organiser", PASSWORD), redirect_to=elsewhere.url + "/schedule.ics") as schedule:
            source_add(
                db,
                schedule.url + "/moved",
                "--username",
                "organiser",
                "--password-env",
                "SOURCE_PASSWORD",
                "--header-env",
                "X-Api-Key=SCHED_KEY",
                env={"SOURCE_PASSWORD": PASSWORD, "SCHED_KEY": API_KEY},
            )
            with Store.open(db) as store:
                (source,) = SourceStore(store.engine).all()
                done = run_refresh(store, source.id, source.generation, lambda: NOW)

    basic = "Basic " + base64.b64encode(f"organiser:{PASSWORD}".encode()).decode()
    assert done is not None and done.result is Outcome.OK
    assert schedule.seen == [("/moved", basic, API_KEY)]
    assert elsewhere.seen == [("/schedule.ics", None, None)]


def test_a_login_in_the_url_and_in_the_options_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "store.sqlite")
    (tmp_path / "password").write_text(PASSWORD, encoding="utf-8")
    url = f"http://organiser:{PASSWORD}@127.0.0.1/x"

    code = main(["source", "add", "--db", db, url, "--username", "u", "--password-file", str(tmp_path / "password")])

    err = capsys.readouterr().err
    assert (code != 0, len(err.splitlines()), PASSWORD in err) == (True, 1, False)


def test_an_upgrade_moves_a_stored_password_out_of_the_urls(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    with Store.open(db):
        pass
    url = f"https://organiser:{PASSWORD}@sched.example.org/list"
    with sqlite3.connect(db) as conn:  # a store as the revision before kept a `user:password@` URL
        conn.execute("DROP TABLE schedule_source_credentials")
        conn.execute("UPDATE alembic_version SET version_num = '0006_pick_changes'")
        conn.execute(
            "INSERT INTO schedule_source (urls, interval, allow_private, validators, next_run, generation, created)"
            " VALUES (?, 900, 0, '[[null, null]]', '2025-03-01 09:00:00.000000', 0, '2025-03-01 09:00:00.000000')",
            (f'["{url}"]',),
        )
    assert PASSWORD.encode() in store_bytes(db)

    with Store.open(db) as store:
        table = SourceStore(store.engine)
        (source,) = table.all()
        login = table.login(source)

    assert source.spec.urls == ("https://sched.example.org/list",)
    assert login is not None and (login.username, login.password.reveal(), login.headers) == ("organiser", PASSWORD, ())
    assert (PASSWORD.encode() in store_bytes(db)) is False
