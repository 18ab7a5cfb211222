"""A new ingest is served without a restart; feeds untouched by the change keep bytes and ETag.

The change: the seed pages, then the same pages with one session retitled, one moved and one
removed (tests/server/app/fixtures/002_changed.txt).
"""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_thread
import httpx

from feeds.model import Schedule
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http


def feed_state(http: Http) -> dict[str, tuple[bytes, str]]:
    feeds = http.get("/api/feeds").json_doc()["feeds"]
    state = {}
    for feed in feeds:
        reply = http.get(feed["url"])
        state[feed["url"]] = (reply.content, reply.headers["etag"])
    return state


def session_ids_by_feed(http: Http) -> dict[str, set[str]]:
    """Which session ids each feed holds, read from the feed's UIDs via the sessions API."""
    by_uid = {s["uid"]: s["id"] for s in http.get("/api/sessions").json_doc()["sessions"]}
    result: dict[str, set[str]] = {}
    for feed in http.get("/api/feeds").json_doc()["feeds"]:
        body = http.get(feed["url"]).text
        result[feed["url"]] = {by_uid[line[4:]] for line in body.split("\r\n") if line.startswith("UID:")}
    return result


def test_unchanged_feeds_keep_bytes_and_etag(store: Store, demo_schedule: Schedule, changed_schedule: Schedule) -> None:
    store.ingest(demo_schedule)
    app = create_app(store, clock=lambda: NOW)
    http = Http(app)
    before, held_before = feed_state(http), session_ids_by_feed(http)

    report = store.ingest(changed_schedule)
    swapped = app.state.live.refresh()
    after, held_after = feed_state(http), session_ids_by_feed(http)

    touched = {*report.changed, *report.cancelled}
    assert len(touched) == 3
    assert swapped is True
    untouched = [url for url in before if not (held_before[url] | held_after.get(url, set())) & touched]
    assert len(untouched) > len(before) // 2
    for url in untouched:
        assert after[url] == before[url], url
    for url in set(before) - set(untouched):
        if url in after:
            assert after[url][1] != before[url][1], url


def test_removed_session_is_served_as_cancelled(
    store: Store, demo_schedule: Schedule, changed_schedule: Schedule
) -> None:
    store.ingest(demo_schedule)
    app = create_app(store, clock=lambda: NOW)
    http = Http(app)
    http.get("/feeds/all.ics")

    report = store.ingest(changed_schedule)
    app.state.live.refresh()
    sessions = {s["id"]: s for s in http.get("/api/sessions").json_doc()["sessions"]}

    (removed,) = report.cancelled
    assert sessions[removed]["status"] == "cancelled"
    assert http.get(sessions[removed]["ics"]).content.count(b"STATUS:CANCELLED") == 1


def test_refresh_without_a_change_keeps_the_snapshot(store: Store, demo_schedule: Schedule) -> None:
    store.ingest(demo_schedule)
    app = create_app(store, clock=lambda: NOW)
    Http(app).get("/")

    assert app.state.live.refresh() is False


def test_running_app_picks_up_an_ingest_by_polling(
    store: Store, demo_schedule: Schedule, changed_schedule: Schedule
) -> None:
    """The lifespan's watcher, not a manual refresh, swaps in the new schedule."""
    store.ingest(demo_schedule)
    app = create_app(store, poll_interval=0.05, clock=lambda: NOW)

    async def scenario() -> tuple[Any, Any]:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
                before = (await client.get("/feeds/all.ics")).headers["etag"]
                await anyio.to_thread.run_sync(store.ingest, changed_schedule)
                after = before
                for _ in range(400):  # bounded wait: the watcher polls every 0.05 s
                    await anyio.sleep(0.05)
                    after = (await client.get("/feeds/all.ics")).headers["etag"]
                    if after != before:
                        break
                return before, after

    before, after = anyio.run(scenario)

    assert after != before
