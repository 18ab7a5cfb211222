"""/schedule.xml and /schedule.json: the exports, memoized per snapshot, with ETag and 304."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette

from feeds.exports import EXPORTERS
from feeds.model import Schedule
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http

PATHS = {"/schedule.xml": "frab-xml", "/schedule.json": "c3voc-json"}


@pytest.mark.parametrize(("path", "name"), PATHS.items())
def test_serves_the_export_of_the_live_schedule(http: Http, path: str, name: str) -> None:
    exporter = EXPORTERS[name]
    live = http.app.state.live.current().schedule

    reply = http.get(path, accept_encoding="identity")

    assert (reply.status, reply.headers["content-type"]) == (200, exporter.media_type)
    assert reply.content == exporter.render(live, now=NOW, base_url="http://testserver")
    assert len(live.sessions) == 28


@pytest.mark.parametrize("path", PATHS)
def test_revalidation_with_the_etag_gives_304(http: Http, path: str) -> None:
    first = http.get(path)

    again = http.get(path, if_none_match=first.headers["etag"])

    assert (again.status, again.raw, again.headers["etag"]) == (304, b"", first.headers["etag"])


@pytest.mark.parametrize("path", PATHS)
def test_head_has_the_headers_and_no_body(http: Http, path: str) -> None:
    get, head = http.get(path, accept_encoding="identity"), http.head(path, accept_encoding="identity")

    assert (head.status, head.raw, head.headers["content-length"], head.headers["etag"]) == (
        200,
        b"",
        get.headers["content-length"],
        get.headers["etag"],
    )


def test_rendered_once_per_snapshot(demo_app: Starlette, http: Http) -> None:
    http.get("/schedule.xml")
    published = demo_app.state.live.snapshot()
    memo_before = dict(published._memo)

    http.get("/schedule.xml")

    assert dict(published._memo) == memo_before
    assert any(key[:2] == ("export", "frab-xml") for key in memo_before if isinstance(key, tuple))


def test_a_new_ingest_changes_the_export_and_its_etag(
    store: Store, demo_schedule: Schedule, changed_schedule: Schedule
) -> None:
    store.ingest(demo_schedule, now=NOW)
    http = Http(create_app(store, clock=lambda: NOW, poll_interval=0.05))
    before = http.get("/schedule.xml")

    store.ingest(changed_schedule, now=NOW)
    http = Http(create_app(store, clock=lambda: NOW))
    after = http.get("/schedule.xml", if_none_match=before.headers["etag"])

    assert (after.status, after.headers["etag"] != before.headers["etag"]) == (200, True)


@pytest.mark.parametrize("path", PATHS)
def test_served_under_the_conference_base_too(http: Http, path: str) -> None:
    root = http.get(path, accept_encoding="identity")

    under = http.get(f"/c/pytorch-conference-europe-2026{path}", accept_encoding="identity")
    missing = http.get(f"/c/no-such-conference{path}")

    # The default conference's documents are the same bytes at the root and under its base.
    assert (under.status, under.content, under.headers["etag"]) == (200, root.content, root.headers["etag"])
    assert missing.status == 404
