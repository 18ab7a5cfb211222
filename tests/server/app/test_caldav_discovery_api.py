"""`api/picks/{token}/caldav/calendars` and attaching a new calendar, against real Radicale and
Xandikos servers on loopback: the account's calendars found from the server's root URL, a new
calendar made for the conference and attached, and refusals in one line."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import pytest

from server.caldav.dav import DavStorage
from server.crypto import Password
from server.store import Store
from server.store.caldav_targets import Target, TargetState
from server.store.sync_counts import SyncCounts
from server.web.bodies import BodyError
from server.web.caldav_api import target_document
from server.web.caldav_body import discovery_body
from tests.helpers.app_helpers import NOW, Http, Reply
from tests.helpers.caldav_helpers import PASSWORD, USER, DavServer, send_json
from tests.server.app.test_caldav_api import app_http, new_picks


def root(calendar: str) -> str:
    parts = urlsplit(calendar)
    return f"{parts.scheme}://{parts.netloc}/"


def discover(http: Http, token: str, server: str, password: str = PASSWORD) -> Reply:
    return send_json(
        http, "POST", f"/api/picks/{token}/caldav/calendars", {"server": server, "username": USER, "password": password}
    )


def attach_new(http: Http, token: str, home: str, name: str) -> Reply:
    return send_json(
        http,
        "POST",
        f"/api/picks/{token}/caldav",
        {"url": home, "username": USER, "password": PASSWORD, "new_calendar": name},
    )


def test_the_accounts_calendars_are_listed_from_the_servers_root_with_name_and_events(
    db: Store, dav: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    server = root(dav.new_calendar())
    home = discover(http, token, server).json_doc()["home"]
    made = attach_new(http, token, home, "Picks of mine").json_doc()["url"]

    found = discover(http, token, server)

    assert found.status == 200
    listed = [(c["url"], c["name"], c["events"]) for c in found.json_doc()["calendars"] if c["url"] == made]
    assert listed == [(made, "Picks of mine", True)]
    assert PASSWORD not in found.text


def test_a_wrong_password_to_discovery_is_a_422_naming_the_login(
    db: Store, dav: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    server = root(dav.new_calendar())

    refused = discover(http, token, server, password="wrong-0042")

    assert refused.status == 422
    assert refused.json_doc()["error"].startswith("cannot log in to ")


def test_a_new_calendar_is_made_in_the_home_and_attached(
    db: Store, dav: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    server = root(dav.new_calendar())
    home = discover(http, token, server).json_doc()["home"]

    attached = attach_new(http, token, home, "PyTorch Conference 2026")

    assert attached.status == 201
    made = attached.json_doc()["url"]
    assert (made.startswith(home), made != home) == (True, True)
    storage = DavStorage.connect(made, USER, Password(PASSWORD), allow_private=True)
    try:
        assert storage.list() == {}
    finally:
        storage.close()


def test_a_server_that_does_not_answer_is_a_502(db: Store, dav: DavServer, monkeypatch: pytest.MonkeyPatch) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    nowhere = f"http://127.0.0.1:{http_port_of_nothing()}/"

    refused = discover(http, token, nowhere)

    assert refused.status == 502


def http_port_of_nothing() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        ("alice@fastmail.com", "https://fastmail.com/"),
        ("Alice.Smith@Example.ORG", "https://example.org/"),
        ("https://caldav.fastmail.com", "https://caldav.fastmail.com/"),
    ],
)
def test_an_e_mail_address_stands_for_its_domains_https_root(server: str, expected: str) -> None:
    body = f'{{"server": "{server}", "username": "a", "password": "p"}}'.encode()

    assert discovery_body(body).server == expected


@pytest.mark.parametrize(
    ("server", "message"),
    [
        ("ftp://example.org/", "the server must be an https:// address or your e-mail address"),
        ("not an address", "the server must be an https:// address or your e-mail address"),
    ],
)
def test_a_server_that_is_neither_url_nor_e_mail_is_refused(server: str, message: str) -> None:
    body = f'{{"server": "{server}", "username": "a", "password": "p"}}'.encode()

    with pytest.raises(BodyError) as refused:
        discovery_body(body)

    assert (str(refused.value), refused.value.status) == (message, 422)


def test_the_status_counts_events_held_elsewhere_and_says_when_writes_are_checked() -> None:
    stored = Target(
        id=1,
        conference="conf",
        pick_token="token",
        url="https://dav.example.org/cal/",
        username=USER,
        state=TargetState.ACTIVE,
        created=NOW,
        updated=NOW,
        last_sync=NOW,
        last_result="ok",
        counts=SyncCounts(created=2, conflicts=1, elsewhere=1, checked_writes=1),
        last_error=None,
        wanted_generation=1,
        synced_generation=1,
        attempts=0,
        next_attempt_at=None,
        lease_owner=None,
        lease_until=None,
    )

    document = target_document(stored)

    assert (document["counts"], document["checks_writes"]) == (
        {"created": 2, "updated": 0, "deleted": 0, "unchanged": 0, "conflicts": 1, "elsewhere": 1},
        True,
    )
