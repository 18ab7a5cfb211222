"""Feeds answered before routing: exactly the catalogue feeds the router would answer, personal
feeds whose set is kept and whose feed is made, and the route's bytes and headers."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette

from feeds.model import Schedule
from server.snapshot.live import Live
from server.store import Store
from server.web.fast_feeds import FeedFastPath
from tests.helpers.app_helpers import NOW, Http, send

DEMO = "pytorch-conference-europe-2026"


@pytest.fixture(scope="module")
def fast(demo_app: Starlette) -> FeedFastPath:
    live: Live = demo_app.state.live
    live.refresh()
    live.warm()
    return FeedFastPath(demo_app, live, max_age=300)


def test_every_catalogue_feed_is_found_at_the_root_and_under_its_base(demo_app: Starlette, fast: FeedFastPath) -> None:
    published = demo_app.state.live.current()

    found = {
        (prefix, feed.path): fast.lookup(f"{prefix}/{feed.path}")
        for feed in published.feeds
        for prefix in ("", f"/c/{DEMO}")
    }

    assert found == {
        (prefix, feed.path): feed.representation for feed in published.feeds for prefix in ("", f"/c/{DEMO}")
    }


@pytest.mark.parametrize(
    "path",
    [
        "/feeds/all",
        "/feeds/all.ics/",
        "/feeds/all/all.ics",
        "/feeds/track/compilers/x.ics",
        "/feeds/nosuchkind/x.ics",
        "/feeds/track/no-such-track.ics",
        "/feeds/track/.ics",
        "/c/no-such-conference/feeds/all.ics",
        "/c//feeds/all.ics",
        "/feed/all.ics",
        "/sessions/all.ics",
        "/",
    ],
)
def test_anything_else_is_left_to_the_router(fast: FeedFastPath, path: str) -> None:
    assert fast.lookup(path) is None


def test_the_answer_is_the_routes_with_its_conditions_and_guards(http: Http) -> None:
    full = http.get("/feeds/all.ics", accept_encoding="identity")
    zipped = http.get("/c/" + DEMO + "/feeds/all.ics", accept_encoding="gzip")
    unchanged = http.get("/feeds/all.ics", if_none_match=full.headers["etag"], accept_encoding="identity")
    head = http.head("/feeds/all.ics", accept_encoding="identity")
    filtered = http.get("/feeds/all.ics?track=no-such-track")

    assert (full.status, zipped.status, unchanged.status, head.status) == (200, 200, 304, 200)
    assert zipped.headers["content-encoding"] == "gzip" and zipped.content == full.content
    assert full.headers["x-content-type-options"] == "nosniff"
    assert head.raw == b"" and head.headers["content-length"] == str(len(full.content))
    assert filtered.status == 200 and filtered.content != full.content


def _picked(demo_app: Starlette) -> str:
    token: str = send(demo_app, "POST", "/api/picks", b'{"sessions": []}').json_doc()["token"]
    return token


def test_a_personal_feed_once_made_is_answered_before_routing(demo_app: Starlette) -> None:
    token = _picked(demo_app)
    fast = FeedFastPath(
        demo_app, demo_app.state.live, max_age=300, picks=demo_app.state.pick_cache, upkeep=demo_app.state.upkeep
    )
    before = fast.lookup(f"/p/{token}.ics")  # the set is kept (created here), its feed not made yet
    routed = Http(demo_app).get(f"/p/{token}.ics", accept_encoding="identity")

    found = fast.lookup(f"/p/{token}.ics")
    under_base = fast.lookup(f"/c/{DEMO}/p/{token}.ics")

    assert before is None
    assert found is not None and found is under_base
    assert (found.body, found.etag, found.personal) == (routed.content, routed.headers["etag"], True)
    assert [fast.lookup(p) for p in (f"/p/{token}.svg", f"/p/{token}/x.ics", "/p/no-such-token.ics")] == [None] * 3


def test_a_personal_feed_from_the_fast_path_has_the_routes_headers(demo_app: Starlette) -> None:
    token = _picked(demo_app)
    http = Http(demo_app)
    routed = http.get(f"/p/{token}.ics", accept_encoding="gzip")

    fast = http.get(f"/p/{token}.ics", accept_encoding="gzip")
    unchanged = http.get(f"/p/{token}.ics", accept_encoding="gzip", if_none_match=routed.headers["etag"])
    metrics = http.get("/metrics").text

    assert (routed.status, fast.status, unchanged.status) == (200, 200, 304)
    assert {k: v for k, v in fast.headers.items() if k != "date"} == {
        k: v for k, v in routed.headers.items() if k != "date"
    }
    assert fast.raw == routed.raw
    assert unchanged.headers["cache-control"] == "private, max-age=300"
    assert 'confcal_feeds_served_total{kind="personal",status="304"}' in metrics


def test_a_feed_not_rendered_yet_is_left_to_the_route(demo_app: Starlette) -> None:
    # The route renders it in a worker thread (server.snapshot.feed_renders), not this layer on the
    # event loop.
    live: Live = demo_app.state.live
    cold = Live(live.store)
    cold.refresh()
    fast = FeedFastPath(demo_app, cold, max_age=300)

    found = fast.lookup("/feeds/all.ics")

    feed = cold.current().feed("all")
    assert found is None
    assert feed is not None and not feed.rendered


def test_a_path_found_before_a_new_version_finds_the_new_feed_after_it(
    store: Store, demo_schedule: Schedule, changed_schedule: Schedule
) -> None:
    store.ingest(demo_schedule, now=NOW)
    live = Live(store, clock=lambda: NOW)
    live.refresh()
    live.warm()
    fast = FeedFastPath(Starlette(), live, max_age=300)
    before = fast.lookup("/feeds/all.ics")
    store.ingest(changed_schedule, now=NOW)
    live.refresh()
    live.warm()

    after = fast.lookup("/feeds/all.ics")

    feed = live.current().feed("all")
    assert feed is not None and before is not None
    assert after is feed.representation
    assert after.etag != before.etag
