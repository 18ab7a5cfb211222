"""Several conferences on one server: each under its own base `/c/{slug}/`, the default one also at
the root, and an ingest of one never changes a byte (or an ETag) of what another serves."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from starlette.applications import Starlette

from feeds import urls
from feeds.model import Schedule
from server.pages.assets import asset_path
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http, raw_get

INGESTED = datetime(2026, 3, 30, 12, tzinfo=UTC)  # stamps new sessions' `modified`
DEMO = "pytorch-conference-europe-2026"
TINY = "tiny-conf"

Responses = dict[str, tuple[int, bytes, str | None]]


def site_relative(path: str, base: str) -> str:
    # The default conference links to the root paths wherever it is served.
    return path.removeprefix(base).lstrip("/")


def crawl(http: Http, base: str) -> Responses:
    """Every response of the conference at `base` ("" for the root): page, API documents, the
    exports for conference apps, each feed (plain and filtered) and its QR code, each session
    download, a static file."""
    paths = [f"{base}/", f"{base}/static/style.css", f"{base}/{urls.SCHEDULE_XML}"]
    paths.append(f"{base}/{urls.SCHEDULE_JSON}")
    for api in (urls.API_FEEDS, urls.API_SESSIONS):
        paths += [f"{base}/{api}", f"{base}/{urls.json_twin(api)}"]
    feeds = http.get(f"{base}/{urls.API_FEEDS}").json_doc()["feeds"]
    sessions = http.get(f"{base}/{urls.API_SESSIONS}").json_doc()["sessions"]
    for feed in feeds:
        relative = site_relative(feed["url"], base)
        paths += [f"{base}/{relative}", f"{base}/{urls.feed_qr(relative)}"]
        paths.append(f"{base}/{relative}?level=beginner")
    paths += [f"{base}/{site_relative(s['ics'], base)}" for s in sessions]
    found: Responses = {}
    for path in paths:
        reply = http.get(path)
        found[path] = (reply.status, reply.content, reply.headers.get("etag"))
    return found


def sessions_of(http: Http, base: str) -> list[str]:
    doc = http.get(f"{base}/{urls.API_SESSIONS}").json_doc()
    return sorted(s["title"] for s in doc["sessions"])


@pytest.fixture
def two(tmp_path: Path, demo_schedule: Schedule, small_schedule: Schedule) -> Iterator[Store]:
    """The demo ingested first (so the default), then Tiny Conf."""
    opened = Store.open(str(tmp_path / "two.sqlite"))
    opened.ingest(demo_schedule, now=INGESTED)
    opened.ingest(small_schedule, now=INGESTED)
    yield opened
    opened.close()


@pytest.fixture
def app(two: Store) -> Starlette:
    return create_app(two, clock=lambda: NOW)


def retitled(schedule: Schedule) -> Schedule:
    first, *rest = schedule.sessions
    return dataclasses.replace(
        schedule,
        sessions=(dataclasses.replace(first, title=first.title + " (moved)"), *rest),
    )


def test_each_conference_is_served_under_its_base(
    app: Starlette, demo_schedule: Schedule, small_schedule: Schedule
) -> None:
    http = Http(app)

    demo, tiny = sessions_of(http, f"/c/{DEMO}"), sessions_of(http, f"/c/{TINY}")

    assert demo == sorted(s.title for s in demo_schedule.sessions)
    assert tiny == sorted(s.title for s in small_schedule.sessions)
    assert http.get(f"/c/{TINY}/feeds/all.ics").text.count("BEGIN:VEVENT") == 4
    feeds = http.get(f"/c/{TINY}/api/feeds").json_doc()["feeds"]
    assert feeds[0]["url"] == f"/c/{TINY}/feeds/all.ics"


def test_root_paths_answer_what_the_default_conference_answers(app: Starlette) -> None:
    http = Http(app)

    root, default = crawl(http, ""), crawl(http, f"/c/{DEMO}")

    assert len(root) > 100
    assert {path: reply for path, reply in default.items()} == {
        f"/c/{DEMO}{path}": reply for path, reply in root.items()
    }
    assert all(status == 200 for status, _, _ in root.values())


def test_root_feeds_and_api_are_those_of_a_single_conference_server(
    app: Starlette, tmp_path: Path, demo_schedule: Schedule
) -> None:
    alone = Store.open(str(tmp_path / "alone.sqlite"))
    alone.ingest(demo_schedule, now=INGESTED)
    single = crawl(Http(create_app(alone, clock=lambda: NOW)), "")
    alone.close()

    several = crawl(Http(app), "")

    # Only the page differs: it links to the other conference.
    assert {p: r for p, r in several.items() if p != "/"} == {p: r for p, r in single.items() if p != "/"}
    assert several["/"][1] != single["/"][1]


def test_the_page_links_to_the_other_conferences(app: Starlette) -> None:
    http = Http(app)

    root, tiny = http.get("/").text, http.get(f"/c/{TINY}/").text

    assert f'<a href="/c/{TINY}/">Tiny Conf</a>' in root
    assert f'<a href="/c/{DEMO}/">PyTorch Conference Europe 2026</a>' in tiny
    # Relative links: they resolve under /c/{TINY}/ (the page's own base).
    assert f'href="{asset_path("schedule.css")}"' in tiny
    assert 'data-api="api/picks"' in tiny


def test_api_conferences_lists_every_conference(app: Starlette) -> None:
    reply = Http(app).get("/api/conferences")

    assert reply.status == 200
    assert reply.headers["etag"]
    assert reply.json_doc() == {
        "conferences": [
            {
                "slug": DEMO,
                "name": "PyTorch Conference Europe 2026",
                "timezone": "Europe/Paris",
                "start": "2026-04-07",
                "end": "2026-04-07",
                "sessions": 28,
                "url": f"/c/{DEMO}/",
            },
            {
                "slug": TINY,
                "name": "Tiny Conf",
                "timezone": "Europe/Paris",
                "start": "2026-04-07",
                "end": "2026-04-07",
                "sessions": 3,
                "url": f"/c/{TINY}/",
            },
        ]
    }


@pytest.mark.parametrize("changed", ["default", "other"])
def test_reingesting_one_conference_leaves_every_response_of_the_other_identical(
    two: Store,
    app: Starlette,
    changed: str,
    changed_schedule: Schedule,
    small_schedule: Schedule,
) -> None:
    http = Http(app)
    watched = "" if changed == "other" else f"/c/{TINY}"
    moved = f"/c/{TINY}" if changed == "other" else ""
    before, moved_before = crawl(http, watched), crawl(http, moved)
    kept = app.state.live.snapshot(DEMO if changed == "other" else TINY)

    two.ingest(retitled(small_schedule) if changed == "other" else changed_schedule)
    swapped = app.state.live.refresh()

    assert swapped is True
    assert app.state.live.snapshot(DEMO if changed == "other" else TINY) is kept
    assert crawl(http, moved) != moved_before
    assert crawl(http, watched) == before


def test_default_names_the_conference_served_at_the_root(two: Store) -> None:
    http = Http(create_app(two, clock=lambda: NOW, default=TINY))

    root = crawl(http, "")

    assert root == {path.removeprefix(f"/c/{TINY}"): reply for path, reply in crawl(http, f"/c/{TINY}").items()}
    assert sessions_of(http, "") == sessions_of(http, f"/c/{TINY}")


def test_a_default_not_in_the_store_is_unavailable_at_the_root(two: Store, caplog: pytest.LogCaptureFixture) -> None:
    http = Http(create_app(two, clock=lambda: NOW, default="not-ingested-yet"))

    assert http.get("/feeds/all.ics").status == 503
    assert http.get(f"/c/{TINY}/feeds/all.ics").status == 200
    assert "default conference 'not-ingested-yet' is not in the store yet" in caplog.text


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/c/no-such-conf/feeds/all.ics", 404),
        ("/c/no-such-conf/", 404),
        ("/c/Bad..Slug/feeds/all.ics", 400),
        (f"/c/{TINY}/feeds/nope.ics", 404),
    ],
)
def test_unknown_or_malformed_conferences(app: Starlette, path: str, status: int) -> None:
    assert Http(app).get(path).status == status


def test_pick_sets_belong_to_their_conference(app: Starlette) -> None:
    http = Http(app)
    first = http.get(f"/c/{TINY}/api/sessions").json_doc()["sessions"][0]["id"]
    body = json.dumps({"sessions": [first]}).encode()

    created = http.request("POST", f"/c/{TINY}/api/picks", {"content-type": "application/json"}, body=body)
    token = created.json_doc()["token"]

    assert created.status == 201
    assert created.json_doc()["feed"] == f"http://testserver/c/{TINY}/p/{token}.ics"
    assert created.headers["location"] == f"/c/{TINY}/api/picks/{token}"
    assert http.get(f"/c/{TINY}/p/{token}.ics").text.count("BEGIN:VEVENT") == 1
    assert http.get(f"/c/{TINY}/api/picks/{token}").status == 200
    assert http.get(f"/p/{token}.ics").status == 404
    assert http.get(f"/api/picks/{token}").status == 404
    assert http.get(f"/c/{DEMO}/p/{token}.svg").status == 404


def test_a_base_url_puts_each_conference_under_it(two: Store) -> None:
    http = Http(create_app(two, base_url="https://cal.example.org", clock=lambda: NOW))

    tiny = http.get(f"/c/{TINY}/feeds/all.ics").text
    root = http.get("/feeds/all.ics").text
    listed = http.get("/api/conferences").json_doc()["conferences"]

    first = http.get(f"/c/{TINY}/api/sessions").json_doc()["sessions"][0]["id"]
    assert f"URL:https://cal.example.org/c/tiny-conf/#session-{first}" in tiny
    assert "URL:https://cal.example.org/#session-" in root
    assert [c["url"] for c in listed] == [f"/c/{DEMO}/", f"/c/{TINY}/"]


@pytest.mark.parametrize(
    ("raw_path", "status"),
    [
        (b"/c/%2e%2e/feeds/all.ics", 400),
        (b"/c//feeds/all.ics", 404),
        (b"/c/tiny-conf%00/feeds/all.ics", 400),
        (b"/c/tiny-conf/%2e%2e/%2e%2e/feeds/all.ics", 404),
    ],
)
def test_hostile_conference_segments_are_refused(app: Starlette, raw_path: bytes, status: int) -> None:
    code, _ = raw_get(app, raw_path)

    assert code == status


def test_the_base_without_its_slash_redirects_to_the_page(app: Starlette) -> None:
    reply = Http(app).get(f"/c/{TINY}")

    assert reply.status == 307
    assert reply.headers["location"] == f"http://testserver/c/{TINY}/"


def test_every_event_links_to_its_card_on_its_conference_page(two: Store) -> None:
    http = Http(create_app(two, base_url="https://cal.example.org", clock=lambda: NOW))
    feed = http.get(f"/c/{TINY}/feeds/all.ics").text.replace("\r\n ", "")
    page = http.get(f"/c/{TINY}/").text

    links = [line[4:] for line in feed.split("\r\n") if line.startswith("URL:")]

    assert len(links) == 4
    for link in links:
        page_url, _, anchor = link.partition("#")
        assert page_url == f"https://cal.example.org/c/{TINY}/"
        assert f'id="{anchor}"' in page
