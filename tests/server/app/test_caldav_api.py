"""`api/picks/{token}/caldav` against real Radicale (htpasswd auth) and Xandikos servers on
loopback (allowed here with CONFCAL_CALDAV_ALLOW_PRIVATE=1, refused without it): attach with
a probe first, the status document, detaching, and the password kept out of answers, the
database files and the logs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from server.caldav.target import ALLOW_PRIVATE_ENV
from server.store import Store
from server.web.app import create_app
from server.web.caldav_api import NOTHING_ATTACHED
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.caldav_helpers import PASSWORD, USER, DavServer, send_json

BAD_PASSWORD = "not-the-password-0042"


def app_http(store: Store, monkeypatch: pytest.MonkeyPatch, *, allow_private: bool = True) -> Http:
    if allow_private:
        monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")
    else:
        monkeypatch.delenv(ALLOW_PRIVATE_ENV, raising=False)
    return Http(create_app(store, clock=lambda: NOW))


def new_picks(http: Http, count: int = 3) -> tuple[str, list[str]]:
    ids = [s["id"] for s in http.get("/api/sessions").json_doc()["sessions"]][:count]
    created = send_json(http, "POST", "/api/picks", {"sessions": ids})
    assert created.status == 201
    return created.json_doc()["token"], ids


def attach_body(url: str, password: str = PASSWORD) -> dict[str, str]:
    return {"url": url, "username": USER, "password": password}


def test_attaching_answers_201_with_the_status_and_no_password(
    db: Store, dav: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    calendar = dav.new_calendar()

    attached = send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(calendar))
    read = http.get(f"/api/picks/{token}/caldav")

    assert attached.status == 201
    assert attached.headers["location"] == f"/api/picks/{token}/caldav"
    assert attached.headers["cache-control"] == "private, no-store"
    assert attached.json_doc() == {
        "url": calendar,
        "username": USER,
        "state": "active",
        "sync_pending": True,
        "last_sync": None,
        "last_result": None,
        "counts": None,
        "checks_writes": False,
        "last_error": None,
    }
    assert (read.status, read.json_doc()) == (200, attached.json_doc())
    assert PASSWORD not in attached.text + read.text


def test_a_wrong_password_is_a_422_with_a_message_and_stores_nothing(
    db: Store, dav: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    calendar = dav.new_calendar()

    refused = send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(calendar, BAD_PASSWORD))

    assert refused.status == 422
    assert refused.json_doc() == {"error": f"cannot log in to {calendar} (401): wrong user name or password?"}
    assert http.get(f"/api/picks/{token}/caldav").json_doc() == NOTHING_ATTACHED


def test_a_url_that_is_not_a_calendar_collection_is_a_422(
    db: Store, radicale: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)

    refused = send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(radicale.base_url))

    assert refused.status == 422
    assert refused.json_doc() == {
        "error": f"{radicale.base_url} is not a calendar collection (find the calendar's own URL)"
    }


def test_a_loopback_calendar_is_refused_by_default(
    db: Store, radicale: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch, allow_private=False)
    token, _ = new_picks(http)
    calendar = radicale.new_calendar()
    before = radicale.counts()

    refused = send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(calendar))

    assert refused.status == 422
    assert refused.json_doc() == {
        "error": f"the calendar's address is not allowed: {calendar}: host 127.0.0.1 is a "
        "private address (127.0.0.1: loopback)"
    }
    # The probe never reached the server.
    assert radicale.counts() == before


def test_an_unreachable_server_is_a_502(db: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)

    refused = send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body("http://127.0.0.1:9/cal/"))

    assert refused.status == 502
    assert refused.json_doc()["error"].startswith("cannot reach http://127.0.0.1:9/cal/")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (
            {"url": "ftp://x.test/c/", "username": "u", "password": "p"},
            "the calendar URL must start with https:// (or http://)",
        ),
        (
            {"url": "https://u:p@x.test/c/", "username": "u", "password": "p"},
            "put the user name and password in their own fields, not in the calendar URL",
        ),
        ({"url": "https://x.test/c/", "username": "u"}, '"password" is required (a non-empty string)'),
        (
            {"url": "https://x.test/c/", "username": "u", "password": "p", "x": 1},
            "unexpected field 'x'; send url, username and password",
        ),
        ({"url": "https://x.test/c/", "username": "u\n", "password": "p"}, '"username" contains control characters'),
        ([1], 'expected a JSON object {"url", "username", "password"}'),
    ],
)
def test_a_malformed_body_is_a_422_that_repeats_no_value(
    db: Store, monkeypatch: pytest.MonkeyPatch, document: object, message: str
) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)

    refused = send_json(http, "POST", f"/api/picks/{token}/caldav", document)

    assert (refused.status, refused.json_doc()) == (422, {"error": message})


def test_a_body_over_the_limit_is_a_413(db: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)

    refused = send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body("https://x.test/c/", "p" * 9000))

    assert (refused.status, refused.json_doc()) == (413, {"error": "request body over 8192 bytes"})


def test_an_unknown_token_is_a_404_for_every_method(db: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    http = app_http(db, monkeypatch)
    path = "/api/picks/" + "A" * 24 + "/caldav"

    answers = [
        send_json(http, "POST", path, attach_body("https://x.test/c/")).status,
        http.get(path).status,
        http.request("DELETE", path).status,
    ]

    assert answers == [404, 404, 404]


def test_the_api_is_served_under_the_conference_base_too(
    db: Store, radicale: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    slug = http.get("/api/conferences").json_doc()["conferences"][0]["slug"]

    attached = send_json(http, "POST", f"/c/{slug}/api/picks/{token}/caldav", attach_body(radicale.new_calendar()))

    assert attached.status == 201
    # The default conference's links are its root paths, as in the picks API.
    assert attached.headers["location"] == f"/api/picks/{token}/caldav"
    assert http.get(f"/c/{slug}/api/picks/{token}/caldav").status == 200


def test_detaching_forgets_the_calendar(db: Store, radicale: DavServer, monkeypatch: pytest.MonkeyPatch) -> None:
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(radicale.new_calendar()))

    detached = http.request("DELETE", f"/api/picks/{token}/caldav")
    again = http.request("DELETE", f"/api/picks/{token}/caldav")

    assert detached.status == 204
    assert http.get(f"/api/picks/{token}/caldav").json_doc() == NOTHING_ATTACHED
    assert again.status == 404


def test_the_password_is_in_no_database_file_and_no_log(
    db: Store, dav: DavServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    caplog.set_level(logging.DEBUG)
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)
    calendar = dav.new_calendar()

    send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(calendar, BAD_PASSWORD))
    attached = send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(calendar))
    http.request("DELETE", f"/api/picks/{token}/caldav?remove_events=1")
    send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(calendar))

    files = sorted(p for p in tmp_path.iterdir() if p.name.startswith("store.sqlite"))
    assert attached.status == 201
    assert [p.name for p in files][:2] == ["store.sqlite", "store.sqlite-shm"]
    for secret in (PASSWORD, BAD_PASSWORD):
        for path in files:
            assert secret.encode() not in path.read_bytes(), path.name
        assert secret not in caplog.text


def test_a_calendar_another_pick_set_syncs_into_is_a_409(
    db: Store, radicale: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    http = app_http(db, monkeypatch)
    first, _ = new_picks(http)
    second, _ = new_picks(http, 2)
    calendar = radicale.new_calendar()
    send_json(http, "POST", f"/api/picks/{first}/caldav", attach_body(calendar))

    refused = send_json(http, "POST", f"/api/picks/{second}/caldav", attach_body(calendar))

    assert refused.status == 409
    assert refused.json_doc() == {"error": "another pick set of this conference already syncs into this calendar"}


def test_a_server_without_a_usable_key_answers_503_and_stores_nothing(
    db: Store, radicale: DavServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFCAL_SECRET_KEY", "not-a-fernet-key")
    http = app_http(db, monkeypatch)
    token, _ = new_picks(http)

    refused = send_json(http, "POST", f"/api/picks/{token}/caldav", attach_body(radicale.new_calendar()))

    assert refused.status == 503
    assert refused.headers["retry-after"] == "300"
    assert refused.json_doc() == {
        "error": "this server cannot store calendar passwords: CONFCAL_SECRET_KEY: key 1 is not a "
        "Fernet key (44 url-safe base64 characters; make one with `confcal caldav new-key`)"
    }
    assert http.get(f"/api/picks/{token}/caldav").json_doc() == NOTHING_ATTACHED
