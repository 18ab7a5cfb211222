"""Caching headers and conditional requests, through the app (httpx ASGITransport)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.store import Store
from server.web.app import create_app
from server.web.demo import seed_demo
from tests.helpers.app_helpers import NOW, Http

CACHED_PATHS = [
    "/feeds/all.ics",
    "/feeds/room/master-stage.ics",
    "/api/feeds",
    "/api/sessions",
    "/",
]


def test_feed_is_text_calendar_with_strong_etag_and_cache_control(http: Http) -> None:
    reply = http.get("/feeds/all.ics")

    assert reply.status == 200
    assert reply.headers["content-type"] == "text/calendar; charset=utf-8"
    assert reply.headers["cache-control"] == "public, max-age=300"
    assert reply.headers["etag"].startswith('"')
    assert "last-modified" in reply.headers
    assert reply.content.count(b"BEGIN:VEVENT") == 28


@pytest.mark.parametrize("path", CACHED_PATHS)
def test_same_content_same_bytes_and_etag(http: Http, path: str) -> None:
    first, second = http.get(path), http.get(path)

    assert (first.content, first.headers["etag"]) == (
        second.content,
        second.headers["etag"],
    )


def test_a_restarted_app_serves_identical_bytes(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    with Store.open(db) as store:
        seed_demo(store)
        before = Http(create_app(store)).get("/feeds/all.ics")
    with Store.open(db) as reopened:
        after = Http(create_app(reopened)).get("/feeds/all.ics")

    assert (after.content, after.headers["etag"]) == (
        before.content,
        before.headers["etag"],
    )


@pytest.mark.parametrize("path", CACHED_PATHS)
def test_if_none_match_gives_304_with_validators_and_no_body(http: Http, path: str) -> None:
    etag = http.get(path).headers["etag"]

    reply = http.get(path, if_none_match=etag)

    assert reply.status == 304
    assert reply.raw == b""
    assert reply.headers["etag"] == etag
    assert reply.headers["cache-control"] == "public, max-age=300"
    assert reply.headers["vary"] == "Accept-Encoding"


@pytest.mark.parametrize("form", ['"nope", {etag}', "W/{etag}", '"a",W/{etag},"b"', "*"])
def test_if_none_match_lists_and_weak_forms(http: Http, form: str) -> None:
    etag = http.get("/feeds/all.ics").headers["etag"]

    reply = http.get("/feeds/all.ics", if_none_match=form.format(etag=etag))

    assert reply.status == 304


def test_if_none_match_mismatch_gives_the_body(http: Http) -> None:
    reply = http.get("/feeds/all.ics", if_none_match='"something-else"')

    assert reply.status == 200
    assert reply.content.startswith(b"BEGIN:VCALENDAR")


def test_if_modified_since_the_last_modified_gives_304(http: Http) -> None:
    last_modified = http.get("/feeds/all.ics").headers["last-modified"]

    reply = http.get("/feeds/all.ics", if_modified_since=last_modified)
    older = http.get("/feeds/all.ics", if_modified_since="Thu, 01 Jan 2015 00:00:00 GMT")

    assert (reply.status, older.status) == (304, 200)


def test_if_none_match_takes_precedence_over_if_modified_since(http: Http) -> None:
    last_modified = http.get("/feeds/all.ics").headers["last-modified"]

    reply = http.get("/feeds/all.ics", if_none_match='"other"', if_modified_since=last_modified)

    assert reply.status == 200


@pytest.mark.parametrize("path", CACHED_PATHS)
def test_head_has_get_headers_and_no_body(http: Http, path: str) -> None:
    get, head = http.get(path), http.head(path)

    assert head.status == 200
    assert head.raw == b""
    assert head.headers["etag"] == get.headers["etag"]
    assert head.headers["content-length"] == str(len(get.raw))
    assert head.headers["content-type"] == get.headers["content-type"]


def test_gzip_when_accepted_with_its_own_strong_etag(http: Http) -> None:
    plain = http.get("/feeds/all.ics", accept_encoding="identity")
    zipped = http.get("/feeds/all.ics", accept_encoding="gzip, deflate")

    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plain.content
    assert len(zipped.raw) < len(plain.raw)
    assert zipped.headers["etag"] != plain.headers["etag"]
    assert zipped.headers["vary"] == plain.headers["vary"] == "Accept-Encoding"
    assert zipped.raw == http.get("/feeds/all.ics", accept_encoding="gzip").raw


def test_gzip_variant_revalidates_with_its_own_etag(http: Http) -> None:
    etag = http.get("/feeds/all.ics", accept_encoding="gzip").headers["etag"]

    reply = http.get("/feeds/all.ics", accept_encoding="gzip", if_none_match=etag)

    assert reply.status == 304
    assert reply.headers["etag"] == etag


def test_max_age_is_configurable(store: Store) -> None:
    app = create_app(store, max_age=60, seed=lambda: seed_demo(store), clock=lambda: NOW)

    reply = Http(app).get("/api/feeds")

    assert reply.headers["cache-control"] == "public, max-age=60"
