"""Routes and documents, through the app (httpx ASGITransport) over a real store."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

import pytest

from feeds.model import Schedule
from server.store import Store
from server.web.app import create_app
from server.web.demo import seed_demo
from tests.helpers.app_helpers import NOW, Http

UID = re.compile(rb"^UID:(.+)\r$", re.MULTILINE)
SESSION_KEYS = [
    "id", "uid", "title", "kind", "start", "end", "timezone", "room", "track", "level",
    "description", "speakers", "status", "ics",
]  # fmt: skip


def uids(body: bytes) -> list[bytes]:
    return UID.findall(body)


def feeds_doc(http: Http) -> list[dict[str, Any]]:
    feeds: list[dict[str, Any]] = http.get("/api/feeds").json_doc()["feeds"]
    return feeds


def test_empty_store_serves_the_demo_conference(http: Http) -> None:
    sessions = http.get("/api/sessions").json_doc()["sessions"]

    assert len(sessions) == 28
    assert {s["timezone"] for s in sessions} == {"Europe/Paris"}


def test_api_feeds_lists_every_feed_with_links(http: Http) -> None:
    feeds = feeds_doc(http)

    assert feeds[0] == {
        "kind": "all",
        "name": "PyTorch Conference Europe 2026",
        "slug": "",
        "url": "/feeds/all.ics",
        "webcal": "webcal://testserver/feeds/all.ics",
        "google": "https://calendar.google.com/calendar/r?cid=webcal%3A%2F%2Ftestserver%2Ffeeds%2Fall.ics",
        "events": 28,
    }
    assert {f["kind"] for f in feeds} == {
        "all",
        "track",
        "room",
        "speaker",
        "level",
        "day",
        "kind",
    }


def test_every_listed_feed_is_served_with_its_event_count(http: Http) -> None:
    for feed in feeds_doc(http):
        reply = http.get(feed["url"])

        assert reply.status == 200, feed["url"]
        assert reply.content.count(b"BEGIN:VEVENT") == feed["events"], feed["url"]
        assert feed["webcal"] == "webcal://testserver" + feed["url"]
        assert unquote(feed["google"].split("cid=", 1)[1]) == feed["webcal"]


def test_api_sessions_documents_each_session(http: Http) -> None:
    sessions = http.get("/api/sessions").json_doc()["sessions"]

    first = sessions[0]
    assert list(first) == SESSION_KEYS
    assert first["start"].endswith("+02:00") and first["end"].endswith("+02:00")
    assert first["ics"] == f"/sessions/{first['id']}.ics"
    assert first["status"] == "confirmed"
    assert all(set(speaker) == {"name", "slug", "affiliation"} for s in sessions for speaker in s["speakers"])


def test_session_download_is_an_attachment_with_the_feed_uid(http: Http) -> None:
    session = http.get("/api/sessions").json_doc()["sessions"][3]

    reply = http.get(session["ics"])

    assert reply.status == 200
    assert reply.headers["content-type"] == "text/calendar; charset=utf-8"
    assert reply.headers["content-disposition"].startswith('attachment; filename="')
    assert uids(reply.content) == [session["uid"].encode()]
    assert session["uid"].encode() in uids(http.get("/feeds/all.ics").content)


def test_api_documents_are_also_served_with_json_suffix(http: Http) -> None:
    assert http.get("/api/feeds.json").content == http.get("/api/feeds").content
    assert http.get("/api/sessions.json").content == http.get("/api/sessions").content


def test_base_url_makes_links_absolute_to_it(store: Store) -> None:
    app = create_app(store, base_url="https://cal.example.org/pytorch", seed=lambda: seed_demo(store))

    feeds = feeds_doc(Http(app))

    assert feeds[0]["url"] == "/pytorch/feeds/all.ics"
    assert feeds[0]["webcal"] == "webcal://cal.example.org/pytorch/feeds/all.ics"


def test_track_and_level_narrow(http: Http) -> None:
    sessions = http.get("/api/sessions").json_doc()["sessions"]
    expected = {
        s["uid"].encode() for s in sessions if s["track"] == "Training Systems" and s["level"] == "Intermediate"
    }

    reply = http.get("/feeds/all.ics?track=training-systems&level=intermediate")

    assert reply.status == 200
    assert 0 < len(expected) < 6
    assert set(uids(reply.content)) == expected


def test_two_rooms_widen(http: Http) -> None:
    sessions = http.get("/api/sessions").json_doc()["sessions"]
    expected = {s["uid"].encode() for s in sessions if s["room"] in ("Master Stage", "Junior Stage")}

    reply = http.get("/feeds/all.ics?room=master-stage&room=junior-stage")

    assert set(uids(reply.content)) == expected
    assert len(expected) > len(uids(http.get("/feeds/room/master-stage.ics").content))


def test_filter_on_a_facet_feed_narrows_it(http: Http) -> None:
    reply = http.get("/feeds/level/advanced.ics?room=master-stage")
    sessions = http.get("/api/sessions").json_doc()["sessions"]
    expected = {s["uid"].encode() for s in sessions if s["level"] == "Advanced" and s["room"] == "Master Stage"}

    assert set(uids(reply.content)) == expected


def test_unknown_filter_is_400(http: Http) -> None:
    reply = http.get("/feeds/all.ics?rooms=master-stage")

    assert reply.status == 400
    assert len(reply.content) < 200


@pytest.mark.parametrize(
    "path",
    [
        "/feeds/room/no-such-room.ics",
        "/feeds/planet/mars.ics",
        "/sessions/0000000000.ics",
        "/feeds/other.ics",
        "/nope",
    ],
)
def test_unknown_names_are_404(http: Http, path: str) -> None:
    reply = http.get(path)

    assert reply.status == 404
    assert len(reply.content) < 200


def test_index_lists_every_feed_with_its_three_links(http: Http) -> None:
    reply = http.get("/")
    html = reply.text

    assert reply.headers["content-type"] == "text/html; charset=utf-8"
    for feed in feeds_doc(http):
        assert f'href="{feed["webcal"]}"' in html
        assert f'href="{feed["url"].removeprefix("/")}"' in html  # relative to the page
        assert f'href="{feed["google"]}"' in html.replace("&amp;", "&")


def test_index_escapes_schedule_text(store: Store, small_schedule: Schedule) -> None:
    store.ingest(small_schedule)

    html = Http(create_app(store, clock=lambda: NOW)).get("/").text

    assert "Bob &lt;b&gt;Bold&lt;/b&gt;" in html
    assert "<b>Bold" not in html


def test_static_assets_are_served(http: Http) -> None:
    reply = http.get("/static/style.css")

    assert reply.status == 200
    assert reply.headers["content-type"].startswith("text/css")


def test_empty_store_without_seed_is_503(store: Store) -> None:
    reply = Http(create_app(store)).get("/feeds/all.ics")

    assert reply.status == 503
