"""Catalogue feeds answered before routing: exactly the feeds the router would answer, and the
route's bytes and headers."""

from __future__ import annotations

import pytest
from app_helpers import Http
from starlette.applications import Starlette

from server.app.fast_feeds import FeedFastPath
from server.app.live import Live

DEMO = "pytorch-conference-europe-2026"


@pytest.fixture(scope="module")
def fast(demo_app: Starlette) -> FeedFastPath:
    live: Live = demo_app.state.live
    live.refresh()
    return FeedFastPath(demo_app, live, max_age=300)


def test_every_catalogue_feed_is_found_at_the_root_and_under_its_base(
    demo_app: Starlette, fast: FeedFastPath
) -> None:
    published = demo_app.state.live.current()

    found = {
        (prefix, feed.path): fast.lookup(f"{prefix}/{feed.path}")
        for feed in published.feeds
        for prefix in ("", f"/c/{DEMO}")
    }

    assert found == {
        (prefix, feed.path): feed.representation
        for feed in published.feeds
        for prefix in ("", f"/c/{DEMO}")
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
    unchanged = http.get(
        "/feeds/all.ics", if_none_match=full.headers["etag"], accept_encoding="identity"
    )
    head = http.head("/feeds/all.ics", accept_encoding="identity")
    filtered = http.get("/feeds/all.ics?track=no-such-track")

    assert (full.status, zipped.status, unchanged.status, head.status) == (200, 200, 304, 200)
    assert zipped.headers["content-encoding"] == "gzip" and zipped.content == full.content
    assert full.headers["x-content-type-options"] == "nosniff"
    assert head.raw == b"" and head.headers["content-length"] == str(len(full.content))
    assert filtered.status == 200 and filtered.content != full.content
