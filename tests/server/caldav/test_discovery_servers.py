"""Discovery on the servers people's calendars run on (../shared/caldav-servers): from sabre's and
Cyrus's root URL (their /.well-known/caldav redirects) and from SOGo's DAV root (its well-known URI
answers a plain 200 page) to the account's calendars `conf` and `personal`; the CLI lists them and
`push --server --calendar-name` pushes into one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from server.caldav.dav import DavStorage
from server.caldav.discovery import Discovery, discover
from server.caldav.errors import AuthenticationFailed, NoCalDAV
from server.caldav.retry import NO_WAIT
from server.cli import main
from server.crypto import Password
from server.store import Store
from tests.helpers.push_helpers import PASSWORD, USER, DavServer, make_schedule
from tests.helpers.shared_caldav import SharedServer
from tests.helpers.threaded_server import in_thread

# sabre's calendars carry display names of their own; Cyrus and SOGo name `conf` by its path.
CONF_NAME = {"sabre": "Conference", "cyrus": "conf", "sogo": "conf"}


@pytest.fixture(params=["sabre", "cyrus", "sogo"])
def server(request: pytest.FixtureRequest) -> SharedServer:
    made: SharedServer = request.getfixturevalue(request.param)
    return made


def start_url(server: SharedServer) -> str:
    """What an attendee would type: the root URL, but SOGo's DAV root for SOGo."""
    return server.base if server.kind == "sogo" else f"http://127.0.0.1:{server.info['port']}/"


def found(server: SharedServer) -> Discovery:
    return discover(start_url(server), server.username, Password(server.password), allow_private=True)


def by_segment(discovery: Discovery) -> dict[str, str]:
    return {c.url.rstrip("/").rsplit("/", 1)[-1]: c.url for c in discovery.calendars}


def test_discovery_finds_the_principal_and_the_calendar_home(server: SharedServer) -> None:
    discovery = found(server)

    assert (discovery.principal, discovery.home) == (server.info["principal"], server.home)


def test_discovery_lists_conf_and_personal_taking_events(server: SharedServer) -> None:
    discovery = found(server)

    urls = by_segment(discovery)
    assert (urls["conf"], urls["personal"]) == (server.info["calendar"], server.info["calendar2"])
    assert all(c.events for c in discovery.calendars)


def test_a_wrong_password_is_a_refused_login(server: SharedServer) -> None:
    with pytest.raises(AuthenticationFailed):
        discover(start_url(server), server.username, Password("wrong"), allow_private=True)


def test_sogos_root_url_is_no_caldav_service(sogo: SharedServer) -> None:
    root = f"http://127.0.0.1:{sogo.info['port']}/"

    with pytest.raises(NoCalDAV) as refused:
        discover(root, sogo.username, Password(sogo.password), allow_private=True)

    assert str(refused.value) == f"no CalDAV service found at {root}"


@pytest.fixture
def account(server: SharedServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("CALDAV_PASSWORD", server.password)
    monkeypatch.setattr("server.commands.push.RETRY", NO_WAIT)
    return ["--server", start_url(server), "--username", server.username, "--password-env", "CALDAV_PASSWORD"]


def test_the_cli_lists_the_calendars(
    server: SharedServer, account: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["caldav", "calendars", *account, "--allow-private"])

    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    conf = f'{server.info["calendar"]}  "{CONF_NAME[server.kind]}"  (events)'
    assert [line for line in lines if line.startswith(server.info["calendar"])] == [conf]


def test_the_cli_refuses_a_private_address_unless_allowed(
    server: SharedServer, account: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["caldav", "calendars", *account])

    assert code == 1
    assert capsys.readouterr().out == ""


@pytest.fixture
def conf(server: SharedServer) -> Iterator[DavStorage]:
    """The server's `conf` calendar, emptied afterwards: Cyrus holds a UID once per account, so an
    event left here would block the other tests' pushes of the same sessions."""
    storage = DavStorage.connect(
        server.info["calendar"], server.username, Password(server.password), allow_private=True
    )
    yield storage
    for name, etag in storage.list().items():
        storage.delete(name, etag)
    storage.close()


def test_push_by_calendar_name_pushes_into_that_calendar(
    server: SharedServer, conf: DavStorage, account: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "store.db")
    with Store.open(db) as store:
        store.ingest(make_schedule(2))
        schedule = store.live()
    assert schedule is not None
    sessions = [s.id for s in schedule.sessions]

    code = main(["push", *account, "--calendar-name", "conf", "--db", db, "--allow-private", "--session", *sessions])

    assert code == 0
    assert capsys.readouterr().out == "created 2, updated 0, deleted 0, unchanged 0, conflicts 0\n"
    assert len(conf.list()) == 2


def test_push_by_an_unknown_name_names_the_calendars_there_are(
    sabre: SharedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CALDAV_PASSWORD", sabre.password)
    root = f"http://127.0.0.1:{sabre.info['port']}/"
    argv = ["push", "--server", root, "--calendar-name", "Work", "--username", sabre.username]
    argv += ["--password-env", "CALDAV_PASSWORD", "--db", str(tmp_path / "s.db"), "--allow-private"]

    # Other tests of the session may have added calendars to the account: they are named too.
    names = ", ".join(repr(c.label) for c in found(sabre).calendars)

    code = main([*argv, "--session", "x"])

    assert code == 1
    assert {"'Conference'", "'Personal'"} <= set(names.split(", "))
    assert capsys.readouterr().err == f"confcal push: error: no calendar named 'Work'; the account has: {names}\n"


def test_radicale_is_discovered_from_its_root_url(radicale: DavServer) -> None:
    calendar = radicale.new_calendar()

    discovery = discover(f"http://127.0.0.1:{radicale.port}/", USER, Password(PASSWORD), allow_private=True)

    home = f"http://127.0.0.1:{radicale.port}/{USER}/"
    assert (discovery.principal, discovery.home) == (home, home)
    assert [c.url for c in discovery.calendars if c.url == calendar] == [calendar]


class _Recorder(BaseHTTPRequestHandler):
    """Answers every request with `location` as a 301 (when set) and records the paths asked for."""

    location = ""
    seen: list[str] = []

    def do_PROPFIND(self) -> None:  # noqa: N802 - http.server's naming
        self.seen.append(self.path)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(301 if self.location else 404)
        if self.location:
            self.send_header("Location", self.location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def recording(location: str = "") -> Iterator[tuple[int, list[str]]]:
    seen: list[str] = []
    handler = type("Handler", (_Recorder,), {"location": location, "seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with in_thread(httpd):
        yield httpd.server_address[1], seen


def test_a_redirect_to_another_origin_is_not_followed_with_the_credentials() -> None:
    with recording() as (other, asked_there):
        with recording(f"http://localhost:{other}/dav/") as (port, asked_here):
            with pytest.raises(NoCalDAV):
                discover(f"http://127.0.0.1:{port}/", "alice", Password("secret"), allow_private=True)

    assert (asked_here, asked_there) == (["/.well-known/caldav", "/"], [])
