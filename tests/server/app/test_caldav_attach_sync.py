"""Done when, attach side, against real Radicale (htpasswd) and Xandikos: attaching
through the API and then running the sync through the push service with the stored (encrypted)
credentials puts exactly the picked sessions in the calendar; DELETE with remove_events removes
confcal's events and nothing else; a sync that fails leaves the password out of the exception,
its traceback and the log."""

from __future__ import annotations

import logging
import traceback

import icalendar
import pytest

from server.caldav import service
from server.caldav.content import uids
from server.caldav.dav import DavStorage
from server.caldav.errors import CalDAVError
from server.caldav.retry import RetryPolicy
from server.caldav.target import ALLOW_PRIVATE_ENV, PickToken, SyncOptions, Target
from server.crypto import Password
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.caldav_helpers import PASSWORD, USER, DavServer, send_json

OPTIONS = SyncOptions(allow_private=True, retry=RetryPolicy(attempts=1))
OWN_EVENT = b"""BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//owner//EN\r
BEGIN:VEVENT\r
UID:owner-dentist-appointment\r
DTSTAMP:20260301T090000Z\r
DTSTART:20260407T150000Z\r
DTEND:20260407T160000Z\r
SUMMARY:Dentist\r
END:VEVENT\r
END:VCALENDAR\r
"""


@pytest.fixture
def http(db: Store, monkeypatch: pytest.MonkeyPatch) -> Http:
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")
    return Http(create_app(db, clock=lambda: NOW))


def attached(http: Http, calendar: str, count: int = 3) -> str:
    ids = [s["id"] for s in http.get("/api/sessions").json_doc()["sessions"]][:count]
    token: str = send_json(http, "POST", "/api/picks", {"sessions": ids}).json_doc()["token"]
    answer = send_json(
        http, "POST", f"/api/picks/{token}/caldav", {"url": calendar, "username": USER, "password": PASSWORD}
    )
    assert answer.status == 201
    return token


def sync_stored(db: Store, token: str) -> service.SyncResult:
    """What a sync job does with a stored target: decrypt its credentials, push its pick set."""
    targets = CaldavTargets(db.engine)
    target = targets.by_token(token)
    assert target is not None
    credentials = targets.credentials(target.id)
    assert credentials is not None
    calendar = Target(credentials.url, credentials.username, credentials.password, id=str(target.id))
    return service.sync(db, calendar, PickToken(token), options=OPTIONS)


def calendar_uids(url: str) -> list[str]:
    storage = DavStorage.connect(url, USER, Password(PASSWORD), allow_private=True)
    try:
        return sorted(uid for name in storage.list() for uid in uids(storage.get(name).ics))
    finally:
        storage.close()


def feed_uids(http: Http, token: str) -> list[str]:
    feed = icalendar.Calendar.from_ical(http.get(f"/p/{token}.ics").content)
    return sorted(str(event["UID"]) for event in feed.walk("VEVENT"))


def test_attaching_makes_the_picked_events_appear(http: Http, db: Store, dav: DavServer) -> None:
    calendar = dav.new_calendar()
    token = attached(http, calendar)

    result = sync_stored(db, token)

    assert (result.created, result.updated, result.deleted, result.conflicts) == (3, 0, 0, ())
    assert calendar_uids(calendar) == feed_uids(http, token)
    assert len(calendar_uids(calendar)) == 3


def test_detaching_with_remove_events_removes_only_confcals_events(http: Http, db: Store, dav: DavServer) -> None:
    calendar = dav.new_calendar()
    dav.request("PUT", calendar + "dentist.ics", OWN_EVENT, {"Content-Type": "text/calendar"})
    token = attached(http, calendar)
    sync_stored(db, token)
    before = calendar_uids(calendar)

    detached = http.request("DELETE", f"/api/picks/{token}/caldav?remove_events=1")

    assert detached.status == 204
    assert len(before) == 4
    assert calendar_uids(calendar) == ["owner-dentist-appointment"]
    assert http.get(f"/api/picks/{token}/caldav").json_doc()["state"] == "detached"


def test_detaching_without_remove_events_leaves_the_events(http: Http, db: Store, radicale: DavServer) -> None:
    calendar = radicale.new_calendar()
    token = attached(http, calendar)
    sync_stored(db, token)

    detached = http.request("DELETE", f"/api/picks/{token}/caldav")

    assert detached.status == 204
    assert calendar_uids(calendar) == feed_uids(http, token)


def test_a_failing_sync_shows_the_password_nowhere(
    http: Http, db: Store, radicale: DavServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    calendar = radicale.new_calendar()
    token = attached(http, calendar)
    radicale.stop()  # the calendar server goes away between attach and sync
    try:
        with pytest.raises(CalDAVError) as raised:
            sync_stored(db, token)
    finally:
        radicale.start()

    formatted = "".join(traceback.TracebackException.from_exception(raised.value, capture_locals=True).format())
    assert str(raised.value).startswith(f"cannot reach {calendar}")
    assert PASSWORD not in formatted
    assert PASSWORD not in caplog.text
    # The test's own client (httpx, to http://testserver) logs the paths it asks for; the rest
    # is the app, the service and the outbound client.
    server_side = [r.getMessage() for r in caplog.records if "http://testserver/" not in r.getMessage()]
    assert [m for m in server_side if token in m] == []
    assert "caldav sync target=1 failed error=ServerUnreachable" in caplog.text
