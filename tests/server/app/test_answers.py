"""Pages, documents and downloads a route answered are answered again before routing, with the
same bytes and headers, for as long as the snapshots are the same; never a personal answer,
never across Hosts or a new version."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette

from feeds.model import Schedule
from server.snapshot.published import _MEMO_KEEP
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http


@pytest.fixture
def app(store: Store, demo_schedule: Schedule) -> Starlette:
    store.ingest(demo_schedule)
    made = create_app(store, clock=lambda: NOW)
    made.state.live.refresh()  # as the lifespan does at start
    return made


def reply_of(http: Http, path: str, **headers: str) -> tuple[int, bytes, list[tuple[str, str]]]:
    reply = http.get(path, **headers)
    return reply.status, reply.raw, sorted((k, v) for k, v in reply.headers.items() if k != "date")


@pytest.mark.parametrize(
    "path",
    ["/", "/api/sessions", "/schedule.xml", "/feeds/all.ics?level=beginner", "/speakers/", "/tracks/", "/rooms/"],
)
def test_a_second_same_request_gets_the_routes_answer_again(app: Starlette, path: str) -> None:
    http = Http(app)
    first = reply_of(http, path)

    second = reply_of(http, path)

    assert first[0] == 200
    assert second == first
    assert len(app.state.answers) == 1


def test_a_tracks_page_is_answered_again(app: Starlette) -> None:
    http = Http(app)
    track = next(f["url"] for f in http.get("/api/feeds").json_doc()["feeds"] if "/track/" in f["url"])
    path = "/tracks/" + track.rsplit("/", 1)[1].removesuffix(".ics") + "/"
    first = reply_of(http, path)

    second = reply_of(http, path)

    assert first[0] == 200
    assert second == first
    assert len(app.state.answers) == 2  # /api/feeds and the page


def test_a_noted_answer_still_honours_conditional_requests(app: Starlette) -> None:
    http = Http(app)
    etag = http.get("/").headers["etag"]

    again = http.get("/", if_none_match=etag)

    assert (again.status, again.raw) == (304, b"")


def test_another_host_gets_its_own_links(app: Starlette) -> None:
    http = Http(app)
    http.get("/", host="one.example")

    other = http.get("/", host="two.example").text

    assert "webcal://two.example/" in other
    assert "one.example" not in other
    assert len(app.state.answers) == 2


def test_a_new_version_is_answered_from_its_own_snapshot(
    store: Store, app: Starlette, changed_schedule: Schedule
) -> None:
    http = Http(app)
    before = http.get("/api/sessions").content

    store.ingest(changed_schedule)
    app.state.live.refresh()
    after = http.get("/api/sessions").content

    assert after != before
    assert http.get("/api/sessions").content == after


def test_personal_answers_are_never_noted(app: Starlette) -> None:
    http = Http(app)
    ids = [s["id"] for s in http.get("/api/sessions").json_doc()["sessions"][:2]]
    created = http.request(
        "POST", "/api/picks", {"content-type": "application/json"}, f'{{"sessions": {ids}}}'.replace("'", '"').encode()
    )
    token = created.json_doc()["token"]

    http.get(f"/p/{token}.ics")
    http.get(f"/p/{token}.ics")

    assert len(app.state.answers) == 1  # /api/sessions alone


def test_an_answer_the_snapshot_let_go_of_is_not_kept_and_is_made_again(app: Starlette) -> None:
    http = Http(app)
    first = reply_of(http, "/?q=room0")
    for n in range(1, _MEMO_KEEP + 1):  # pages enough to push the first out of the memo
        http.get(f"/?q=room{n}")
    held = len(app.state.answers)

    again = reply_of(http, "/?q=room0")

    assert held < _MEMO_KEEP
    assert again == first


def answered_before_routing(app: Starlette, path: str, query: bytes) -> bytes | None:
    """The body the middleware would answer `path?query` with from the notes, if any."""
    found = app.state.answers.get(app.state.live.served, ("http", b"testserver", "", path, query))
    return None if found is None else bytes(found[0].body)


@pytest.mark.parametrize(
    ("asked", "path", "tags"),
    [
        ("/?level=beginner", "/", "utm_source=newsletter&level=beginner&fbclid=abc"),
        ("/api/conferences", "/api/conferences", "utm_source=x"),
    ],
)
def test_a_page_or_the_list_asked_with_tags_it_ignores_is_answered_from_the_note_of_the_same_answer(
    app: Starlette, asked: str, path: str, tags: str
) -> None:
    http = Http(app)
    first = http.get(asked).content

    tagged = answered_before_routing(app, path, tags.encode())

    assert tagged == first
    assert reply_of(http, f"{path}?{tags}") == reply_of(http, asked)


def addresses(http: Http) -> dict[str, str]:
    """A session's id, a speaker's slug and a track's slug of the demo, by placeholder."""
    session = http.get("/api/sessions").json_doc()["sessions"][0]["id"]
    urls = [f["url"] for f in http.get("/api/feeds").json_doc()["feeds"]]
    speaker, track = (next(u for u in urls if f"/{kind}/" in u).rsplit("/", 1)[1][:-4] for kind in ("speaker", "track"))
    return {"session": session, "speaker": speaker, "track": track}


@pytest.mark.parametrize(
    "path",
    [
        "/sessions/{session}/",
        "/sessions/{session}.ics",
        "/speakers/{speaker}/",
        "/speakers/",
        "/tracks/",
        "/tracks/{track}/",
        "/rooms/",
        "/api/sessions",
        "/api/sessions.json",
        "/api/feeds",
        "/api/feeds.json",
        "/schedule.xml",
        "/schedule.json",
        "/changes/",
        "/changes.atom",
        "/api/changes",
        "/api/changes.json",
        "/qr/all.svg",
        "/sw.js",
        "/search.json",
        "/host.json",
    ],
)
def test_a_page_or_document_that_reads_no_parameter_asked_with_tags_is_answered_from_its_note(
    app: Starlette, path: str
) -> None:
    http = Http(app)
    plain = path.format(**addresses(http))
    first = reply_of(http, plain)

    tagged = answered_before_routing(app, plain, b"utm_source=newsletter&fbclid=abc")

    assert first[0] == 200
    assert tagged == http.get(plain).content
    assert reply_of(http, f"{plain}?utm_source=newsletter&fbclid=abc") == first


def test_a_page_asked_with_other_filters_is_not_the_noted_view(app: Starlette) -> None:
    http = Http(app)
    http.get("/?level=beginner")

    assert answered_before_routing(app, "/", b"level=advanced") is None
    assert answered_before_routing(app, "/", b"") is None
    assert answered_before_routing(app, "/", b"utm_source=x&level=beginner&level=advanced") is None


def test_a_query_the_page_refuses_is_still_refused_once_the_page_is_noted(app: Starlette) -> None:
    http = Http(app)
    http.get("/")
    many = "&".join(f"utm_{n}=1" for n in range(40))

    refused = http.get("/?" + many)

    assert answered_before_routing(app, "/", many.encode()) is None
    assert refused.status == 400


def test_a_feed_asked_with_a_parameter_it_does_not_know_is_refused_though_noted(app: Starlette) -> None:
    http = Http(app)
    http.get("/feeds/all.ics?level=beginner")

    refused = http.get("/feeds/all.ics?level=beginner&utm_source=x")

    assert answered_before_routing(app, "/feeds/all.ics", b"level=beginner&utm_source=x") is None
    assert refused.status == 400
