"""Headers every response carries (nosniff, no-referrer), private caching of everything behind a
pick token, and the page's Content-Security-Policy without 'unsafe-eval'."""

from __future__ import annotations

import json

import pytest

from server.pages.render import CSP
from tests.helpers.app_helpers import Http, send

PATHS = [
    "/",
    "/feeds/all.ics",
    "/api/feeds",
    "/api/sessions",
    "/static/schedule.js",
    "/feeds/room/no-such-room.ics",  # 404
    "/feeds/room/%00.ics",  # 400
    "/nowhere",  # Starlette's own 404
    "/api/picks/" + "A" * 24,  # picks API 404
    "/p/" + "A" * 24 + ".ics",
]


@pytest.mark.parametrize("path", PATHS)
def test_every_response_says_nosniff_and_no_referrer(http: Http, path: str) -> None:
    reply = http.get(path)

    assert reply.headers["x-content-type-options"] == "nosniff"
    assert reply.headers["referrer-policy"] == "no-referrer"


def picks(http: Http) -> dict[str, str]:
    ids = [s["id"] for s in http.get("/api/sessions").json_doc()["sessions"]][:2]
    body = json.dumps({"sessions": ids}).encode()
    doc: dict[str, str] = send(http.app, "POST", "/api/picks", body).json_doc()
    return doc


def test_personal_feed_and_its_qr_code_are_private(http: Http) -> None:
    doc = picks(http)
    token = doc["token"]

    feed = http.get(f"/p/{token}.ics")
    download = http.get(f"/p/{token}.ics?download=1")
    qr = http.get(f"/p/{token}.svg")
    api = http.get(f"/api/picks/{token}")

    assert feed.headers["cache-control"] == "private, max-age=300"
    assert download.headers["cache-control"] == "private, max-age=300"
    assert qr.headers["cache-control"] == "private, max-age=300"
    assert api.headers["cache-control"] == "private, no-store"


def test_conference_feeds_stay_public(http: Http) -> None:
    assert http.get("/feeds/all.ics").headers["cache-control"] == "public, max-age=300"
    assert http.get("/").headers["cache-control"] == "public, max-age=300"


def test_the_page_csp_allows_no_string_evaluation(http: Http) -> None:
    reply = http.get("/")

    policy = {d.split()[0]: d.split()[1:] for d in reply.headers["content-security-policy"].split("; ")}
    assert reply.headers["content-security-policy"] == CSP
    assert policy["script-src"] == ["'self'"]
    assert "'unsafe-eval'" not in json.dumps(policy)
