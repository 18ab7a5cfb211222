"""The picks API and the personal feed, in process through httpx's ASGITransport, over a real
SQLite store: create, read, replace, unknown tokens, bad bodies, the bound on picks, and the
personal feed behaving like every other feed (same VEVENT bytes and UIDs, ETag, 304)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.applications import Starlette

from feeds.model import Schedule
from server.pages.qr import qr_svg
from server.store import Store
from server.web.app import create_app
from server.web.bodies import MAX_PICKS, MAX_PICKS_BODY
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.picks_client import call, path_of, session_ids


def vevents(calendar: bytes) -> list[bytes]:
    return re.findall(rb"BEGIN:VEVENT\r\n.*?END:VEVENT\r\n", calendar, re.DOTALL)


def uids(calendar: bytes) -> list[str]:
    return [m.decode() for m in re.findall(rb"\r\nUID:([^\r]+)", calendar)]


def test_create_answers_201_with_token_feed_and_webcal(demo_app: Starlette, http: Http) -> None:
    first, second = session_ids(http)[:2]

    reply = call(demo_app, "POST", "/api/picks", {"sessions": [first, second]})

    doc = reply.json_doc()
    assert reply.status == 201
    assert reply.headers["cache-control"] == "private, no-store"
    assert reply.headers["location"] == f"/api/picks/{doc['token']}"
    assert doc["sessions"] == [first, second]
    assert doc["feed"] == f"http://testserver/p/{doc['token']}.ics"
    assert doc["webcal"] == f"webcal://testserver/p/{doc['token']}.ics"


def test_tokens_are_random_and_at_least_128_bits(demo_app: Starlette) -> None:
    tokens = {call(demo_app, "POST", "/api/picks", {"sessions": []}).json_doc()["token"] for _ in range(5)}

    assert len(tokens) == 5
    # URL-safe base64: 6 bits per character.
    assert all(len(t) * 6 >= 128 and re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)


def test_personal_feed_holds_exactly_the_picked_events_as_in_every_feed(demo_app: Starlette, http: Http) -> None:
    ids = session_ids(http)
    picked = [ids[5], ids[1]]
    doc = call(demo_app, "POST", "/api/picks", {"sessions": picked}).json_doc()

    feed = http.get(path_of(doc["feed"]))

    everything = vevents(http.get("/feeds/all.ics").content)
    assert feed.status == 200
    assert feed.headers["content-type"] == "text/calendar; charset=utf-8"
    # Byte-identical VEVENTs (so the same UIDs), in the feeds' order: by start.
    assert vevents(feed.content) == [e for e in everything if any(f"UID:{i}@".encode() in e for i in picked)]
    assert sorted(uids(feed.content)) == sorted(f"{i}@pytorch-conference-europe-2026.confcal" for i in picked)
    assert b"X-WR-CALNAME:PyTorch Conference Europe 2026 - My picks\r\n" in feed.content


def test_get_returns_the_set_with_its_links(demo_app: Starlette, http: Http) -> None:
    picked = session_ids(http)[3:6]
    created = call(demo_app, "POST", "/api/picks", {"sessions": picked}).json_doc()

    reply = call(demo_app, "GET", f"/api/picks/{created['token']}")

    assert reply.status == 200
    assert reply.json_doc() == created


def test_put_replaces_the_whole_set_and_the_feed_url_stays(demo_app: Starlette, http: Http) -> None:
    ids = session_ids(http)
    created = call(demo_app, "POST", "/api/picks", {"sessions": ids[:3]}).json_doc()
    before = http.get(path_of(created["feed"]))

    reply = call(demo_app, "PUT", f"/api/picks/{created['token']}", {"sessions": [ids[10]]})

    after = http.get(path_of(created["feed"]))
    assert reply.status == 200
    assert reply.json_doc()["sessions"] == [ids[10]]
    assert reply.json_doc()["feed"] == created["feed"]
    assert call(demo_app, "GET", f"/api/picks/{created['token']}").json_doc()["sessions"] == [ids[10]]
    assert uids(after.content) == [f"{ids[10]}@pytorch-conference-europe-2026.confcal"]
    assert after.headers["etag"] != before.headers["etag"]


def test_repeated_ids_are_kept_once_in_first_seen_order(demo_app: Starlette, http: Http) -> None:
    a, b = session_ids(http)[:2]

    reply = call(demo_app, "POST", "/api/picks", {"sessions": [b, a, b, a]})

    assert reply.json_doc()["sessions"] == [b, a]


@pytest.mark.parametrize("method", ["GET", "PUT"])
@pytest.mark.parametrize("token", ["A" * 24, "x", "%00" * 8, "a.b"])
def test_unknown_token_is_404_with_a_json_message(demo_app: Starlette, method: str, token: str) -> None:
    reply = call(demo_app, method, f"/api/picks/{token}", {"sessions": []})

    assert reply.status == 404
    assert reply.json_doc() == {"error": "no such pick set"}


@pytest.mark.parametrize("name", ["A" * 24 + ".ics", "A" * 24, "nope.ics", "..%2F..%2Fall.ics"])
def test_unknown_personal_feed_is_404(http: Http, name: str) -> None:
    reply = http.get(f"/p/{name}")

    assert reply.status == 404


NOT_JSON = "request body is not JSON: "
NOT_AN_OBJECT = 'expected a JSON object {"sessions": [session ids]}'
NOT_A_LIST = '"sessions" must be a list of session id strings'


@pytest.mark.parametrize(
    ("raw", "status", "error"),
    [
        (b"", 400, NOT_JSON + "Expecting value: line 1 column 1 (char 0)"),
        (
            b"{",
            400,
            NOT_JSON + "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        # A UTF-16 byte order mark: json reads it as UTF-16, which then ends mid-character.
        (
            b"\xff\xfe\x00",
            400,
            NOT_JSON + "'utf-16-le' codec can't decode byte 0x00 in position 2: truncated data",
        ),
        (b"[]", 422, NOT_AN_OBJECT),
        (b'"sessions"', 422, NOT_AN_OBJECT),
        (b'{"picks": []}', 422, NOT_AN_OBJECT),
        (b'{"sessions": "abc"}', 422, NOT_A_LIST),
        (b'{"sessions": [1, 2]}', 422, NOT_A_LIST),
        (b'{"sessions": [null]}', 422, NOT_A_LIST),
        (b'{"sessions": {"a": 1}}', 422, NOT_A_LIST),
    ],
)
def test_malformed_body_is_400_or_422_with_a_message(demo_app: Starlette, raw: bytes, status: int, error: str) -> None:
    reply = call(demo_app, "POST", "/api/picks", raw=raw)

    assert (reply.status, reply.json_doc()["error"]) == (status, error)


def test_malformed_body_on_put_leaves_the_set_alone(demo_app: Starlette, http: Http) -> None:
    created = call(demo_app, "POST", "/api/picks", {"sessions": session_ids(http)[:1]}).json_doc()

    reply = call(demo_app, "PUT", f"/api/picks/{created['token']}", raw=b"{nope")

    assert reply.status == 400
    assert call(demo_app, "GET", f"/api/picks/{created['token']}").json_doc() == created


def test_unknown_session_id_is_400_naming_it(demo_app: Starlette, http: Http) -> None:
    known = session_ids(http)[0]

    reply = call(demo_app, "POST", "/api/picks", {"sessions": [known, "no-such-talk"]})

    assert reply.status == 400
    assert reply.json_doc() == {"error": "unknown session id 'no-such-talk'"}


def test_unknown_session_id_on_put_is_400_and_changes_nothing(demo_app: Starlette, http: Http) -> None:
    created = call(demo_app, "POST", "/api/picks", {"sessions": session_ids(http)[:2]}).json_doc()

    reply = call(demo_app, "PUT", f"/api/picks/{created['token']}", {"sessions": ["ghost"]})

    assert (reply.status, reply.json_doc()) == (
        400,
        {"error": "unknown session id 'ghost'"},
    )
    assert call(demo_app, "GET", f"/api/picks/{created['token']}").json_doc() == created


def test_more_picks_than_the_bound_is_413(demo_app: Starlette) -> None:
    ids = [f"id{n}" for n in range(MAX_PICKS + 1)]

    reply = call(demo_app, "POST", "/api/picks", {"sessions": ids})

    assert reply.status == 413
    assert reply.json_doc() == {"error": f"at most {MAX_PICKS} sessions can be picked, got {MAX_PICKS + 1}"}


def test_oversized_body_is_413(demo_app: Starlette) -> None:
    reply = call(demo_app, "POST", "/api/picks", raw=b" " * (MAX_PICKS_BODY + 1))

    assert reply.status == 413
    assert reply.json_doc() == {"error": f"request body over {MAX_PICKS_BODY} bytes"}


def test_wrong_methods_are_405(demo_app: Starlette) -> None:
    assert call(demo_app, "GET", "/api/picks").status == 405
    assert call(demo_app, "DELETE", "/api/picks/" + "A" * 24).status == 405


def test_personal_feed_answers_304_and_head_like_every_feed(demo_app: Starlette, http: Http) -> None:
    doc = call(demo_app, "POST", "/api/picks", {"sessions": session_ids(http)[:2]}).json_doc()
    path = path_of(doc["feed"])
    first = http.get(path)

    again = http.get(path, if_none_match=first.headers["etag"])
    head = http.head(path)

    # Personal: a shared cache must not keep it (its URL is the only secret).
    assert first.headers["cache-control"] == "private, max-age=300"
    assert "last-modified" in first.headers
    assert (again.status, again.content) == (304, b"")
    assert (head.status, head.content, head.headers["etag"]) == (
        200,
        b"",
        first.headers["etag"],
    )


def test_download_is_the_same_calendar_as_an_attachment(demo_app: Starlette, http: Http) -> None:
    doc = call(demo_app, "POST", "/api/picks", {"sessions": session_ids(http)[:2]}).json_doc()

    feed = http.get(path_of(doc["feed"]))
    download = http.get(path_of(doc["download"]))

    assert download.headers["content-disposition"] == 'attachment; filename="my-picks.ics"'
    assert "content-disposition" not in feed.headers
    assert download.content == feed.content


def test_picks_persist_in_the_store_across_app_instances(tmp_path: Path, demo_schedule: Schedule) -> None:
    db = str(tmp_path / "store.sqlite")
    with Store.open(db) as store:
        store.ingest(demo_schedule)
        live = store.live()
        assert live is not None
        picked = [live.sessions[0].id]
        token = call(
            create_app(store, clock=lambda: NOW),
            "POST",
            "/api/picks",
            {"sessions": picked},
        ).json_doc()["token"]

    with Store.open(db) as reopened:
        reply = call(create_app(reopened, clock=lambda: NOW), "GET", f"/api/picks/{token}")

    assert reply.json_doc()["sessions"] == picked


def test_a_cancelled_pick_stays_in_the_feed_as_cancelled(store: Store, small_schedule: Schedule) -> None:
    store.ingest(small_schedule)
    app = create_app(store, clock=lambda: NOW)
    by_title = {s["title"]: s for s in Http(app).get("/api/sessions").json_doc()["sessions"]}
    picked = [by_title["Dropped talk"], by_title["Opening"]]
    doc = call(app, "POST", "/api/picks", {"sessions": [s["id"] for s in picked]}).json_doc()

    feed = Http(app).get(path_of(doc["feed"])).content

    assert by_title["Dropped talk"]["status"] == "cancelled"
    assert uids(feed) == [picked[1]["uid"], picked[0]["uid"]]
    assert feed.count(b"STATUS:CANCELLED") == 1


def test_personal_feed_link_as_a_qr_code(demo_app: Starlette, http: Http) -> None:
    doc = call(demo_app, "POST", "/api/picks", {"sessions": []}).json_doc()

    reply = http.get(doc["qr"])

    assert doc["qr"] == f"/p/{doc['token']}.svg"
    assert reply.status == 200
    assert reply.headers["content-type"] == "image/svg+xml"
    assert reply.content == qr_svg(doc["feed"], "Subscribe: my picks").body
    assert http.get(f"/p/{'A' * 24}.svg").status == 404
