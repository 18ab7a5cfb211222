"""The schedule page, QR codes and the card layout, in process (the browser tests drive the script).

The page's HTML is read with the standard library's parser; the JSON API is the oracle for what
the cards must say, since both come from the same snapshot.
"""

from __future__ import annotations

import gzip
import re
from datetime import UTC, date, datetime, timedelta
from html.parser import HTMLParser
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from starlette.applications import Starlette

from feeds.model import Conference, Room, Schedule, Session, Speaker, Track
from server.links import Site
from server.pages.assets import asset_path
from server.pages.calendar_links import event_links
from server.pages.cards import days
from server.pages.page import page_files, page_representation
from server.pages.qr import qr_svg
from server.snapshot.published import Published
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http, paris

Element = tuple[str, dict[str, str]]


class Elements(HTMLParser):
    """Every start tag with its attributes, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}))


def elements(html: str) -> list[Element]:
    parser = Elements()
    parser.feed(html)
    return parser.found


@pytest.fixture(scope="module")
def page(demo_app: Starlette) -> str:
    return Http(demo_app).get("/").text


@pytest.fixture(scope="module")
def api_sessions(demo_app: Starlette) -> list[dict[str, object]]:
    doc = Http(demo_app).get("/api/sessions").json_doc()
    return list(doc["sessions"])


def cards(html: str) -> list[dict[str, str]]:
    return [attrs for _, attrs in elements(html) if "data-session-id" in attrs]


def card_html(html: str, session_id: str) -> str:
    start = html.index(f'data-session-id="{session_id}"')
    return html[start : html.index("</article>\n", start)]


def test_page_has_one_card_per_seed_session(page: str, api_sessions: list[dict[str, object]]) -> None:
    ids = [c["data-session-id"] for c in cards(page)]

    assert len(ids) == 28
    assert sorted(ids) == sorted(str(s["id"]) for s in api_sessions)


def test_cards_are_in_time_order(page: str) -> None:
    starts = [c["data-start"] for c in cards(page)]

    assert starts == sorted(starts)


def test_card_shows_conference_zone_times_and_utc_instants_for_the_script(
    page: str, api_sessions: list[dict[str, object]]
) -> None:
    for session in api_sessions:
        start, end = str(session["start"]), str(session["end"])
        html = card_html(page, str(session["id"]))
        expected = (
            f'<time datetime="{start}">{start[11:16]}</time>–<time datetime="{end}">{end[11:16]}</time> '
            '<abbr title="Europe/Paris">CEST</abbr>'
        )
        utc_start = datetime.fromisoformat(start).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

        assert expected in html
        assert f'data-start="{utc_start}"' in html


def test_card_shows_room_track_level_and_speakers_with_affiliations(
    page: str, api_sessions: list[dict[str, object]]
) -> None:
    session = next(s for s in api_sessions if s["title"] == "TorchJD: Jacobian Descent in PyTorch")

    html = card_html(page, str(session["id"]))

    assert '<span class="room">Founders Cafe</span>' in html
    assert '<span class="track">Training Systems</span>' in html
    assert '<span class="level">Level: Intermediate</span>' in html
    assert (
        '<p class="speakers">Pierre Quinton <span class="affiliation">(EPFL)</span>, '
        'Valérian Rey <span class="affiliation">(Simplex Lab)</span></p>'
    ) in html
    assert f'<a href="sessions/{session["id"]}/" data-session-link>' in html


def test_every_card_has_a_pick_toggle_and_an_ics_and_no_other_calendar_links(
    page: str,
) -> None:
    found = elements(page)
    toggles = [a for tag, a in found if a.get("data-action") == "pick"]
    ics = [a["href"] for tag, a in found if tag == "a" and a.get("class") == "ics"]
    # Google and Outlook are on each session's page: a card stays light (FOSDEM has 470 a day).
    others = [a["href"] for tag, a in found if tag == "a" and ("render?" in a["href"] or "deeplink" in a["href"])]

    assert len(toggles) == 28
    assert all(t["aria-pressed"] == "false" and t["type"] == "button" for t in toggles)
    # Relative links: the page works under a base path and from a static build.
    assert sorted(ics) == sorted(f"sessions/{c['data-session-id']}.ics" for c in cards(page))
    assert others == []


def test_google_event_link_carries_the_utc_times_and_zone() -> None:
    conference = Conference("C", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7), city="Paris")
    session = Session("s1", "Talk & more", paris(11), paris(11, 30), room=Room("Hall"))

    query = parse_qs(urlsplit(event_links(conference, session)[0]).query)

    assert query == {
        "action": ["TEMPLATE"],
        "text": ["Talk & more"],
        "dates": ["20260407T090000Z/20260407T093000Z"],
        "location": ["Hall, Paris"],
        "ctz": ["Europe/Paris"],
    }


def test_subscribe_picker_offers_five_ways_for_every_feed(demo_app: Starlette, page: str) -> None:
    http = Http(demo_app)
    found = elements(page)
    hrefs = {a.get("href", "").replace("&amp;", "&") for _, a in found}
    copy_values = {a.get("value") for tag, a in found if tag == "input" and a.get("class") == "copy"}
    images = {a.get("src") for tag, a in found if tag == "img"}
    feeds = http.get("/api/feeds").json_doc()["feeds"]

    for feed in feeds:
        qr = "qr/" + feed["url"].removeprefix("/feeds/").removesuffix(".ics") + ".svg"
        outlook = "https://outlook.live.com/calendar/0/addfromweb?url=" + quote(
            "http://testserver" + feed["url"], safe=""
        )
        assert {feed["webcal"], feed["google"], feed["url"][1:]} <= hrefs
        assert any(h.startswith(outlook + "&name=") for h in hrefs)
        assert "http://testserver" + feed["url"] in copy_values
        assert qr in images
    assert {f["kind"] for f in feeds} >= {"track", "room", "speaker", "level", "day"}


def test_qr_code_is_an_svg_of_the_feed_link_with_etag_and_304(http: Http) -> None:
    reply = http.get("/qr/room/master-stage.svg")
    again = http.get("/qr/room/master-stage.svg", if_none_match=reply.headers["etag"])

    expected = qr_svg(
        "http://testserver/feeds/room/master-stage.ics",
        "Subscribe: PyTorch Conference Europe 2026 - Room: Master Stage",
    )
    assert reply.status == 200
    assert reply.headers["content-type"] == "image/svg+xml"
    assert reply.content == expected.body
    assert reply.content.startswith(b'<svg xmlns="http://www.w3.org/2000/svg"')
    assert (again.status, again.content) == (304, b"")


def test_qr_code_of_the_whole_conference(http: Http) -> None:
    assert http.get("/qr/all.svg").status == 200


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/qr/room/nowhere.svg", 404),
        ("/qr/planet/earth.svg", 404),
        ("/qr/other.svg", 404),
        ("/qr/room/master-stage.png", 400),
        ("/qr/room/Master%20Stage.svg", 400),
    ],
)
def test_bad_qr_paths(http: Http, path: str, status: int) -> None:
    assert http.get(path).status == status


def test_page_loads_nothing_from_elsewhere(http: Http, page: str) -> None:
    reply = http.get("/")
    # The personal feed's QR image gets its src from the script, once there is a feed.
    loaded = [
        a.get("src") or a.get("href", "")
        for tag, a in elements(page)
        if tag in ("script", "img", "link") and a.get("id") != "personal-qr-image"
    ]

    assert loaded and all(urlsplit(url).scheme == "" and not url.startswith("//") for url in loaded)
    assert "default-src 'self'" in reply.headers["content-security-policy"]
    assert "connect-src 'self'" in reply.headers["content-security-policy"]


@pytest.mark.parametrize(
    ("path", "media"),
    [
        ("/static/schedule.css", "text/css"),
        ("/static/schedule.js", "text/javascript"),
        ("/static/favicon.svg", "image/svg+xml"),
        ("/sw.js", "text/javascript"),
    ],
)
def test_page_assets_are_served_by_confcal(http: Http, path: str, media: str) -> None:
    reply = http.get(path)

    assert reply.status == 200
    assert reply.headers["content-type"].split(";")[0] == media


def test_page_is_cached_like_every_document(http: Http) -> None:
    first = http.get("/")
    again = http.get("/", if_none_match=first.headers["etag"])

    assert first.headers["etag"] == http.get("/").headers["etag"]
    assert again.status == 304


def test_filters_cover_every_track_room_level_and_kind(page: str) -> None:
    found = elements(page)
    # The subscribe picker's reminder choice (feed-alarm) is a select too, but not a filter.
    selects = {a["id"]: a for tag, a in found if tag == "select" and a["id"] != "feed-alarm"}
    labels = {a["for"] for tag, a in found if tag == "label"}

    assert "feed-alarm" in labels
    assert set(selects) == {
        "filter-track",
        "filter-room",
        "filter-level",
        "filter-kind",
    }
    assert set(selects) | {"filter-search", "filter-picked"} <= labels


def options_of(html: str, select_id: str) -> list[tuple[str, str]]:
    start = html.index(f'id="{select_id}"')
    block = html[start : html.index("</select>", start)]
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', block)


def test_levels_in_their_natural_order_and_a_no_track_choice(page: str) -> None:
    levels = [label for _, label in options_of(page, "filter-level")]
    tracks = options_of(page, "filter-track")

    assert levels == ["All", "Intermediate", "Advanced", "Any"]
    assert tracks[-1] == ("-none", "(no track)")
    # Every session has a room and a level: no choice of none.
    assert [v for v, _ in options_of(page, "filter-room") + options_of(page, "filter-level") if v == "-none"] == []


def test_filters_in_the_url_hide_the_other_cards_and_name_their_feed(
    http: Http, api_sessions: list[dict[str, object]]
) -> None:
    html = http.get("/?track=-none&level=advanced").text
    shown = [c["data-session-id"] for c in cards(html) if "hidden" not in c]
    feed = next(a for t, a in elements(html) if "data-filtered-feed" in a)["href"]

    expected = [str(s["id"]) for s in api_sessions if s["track"] is None and s["level"] == "Advanced"]
    feed_ids = re.findall(r"\r\nUID:([^@\r]+)", http.get(feed).text)
    assert feed == "http://testserver/feeds/all.ics?track=-none&level=advanced"
    assert 0 < len(shown) < 28
    assert sorted(shown) == sorted(expected)
    assert len(feed_ids) == len(shown)


def test_one_day_has_no_day_tabs(page: str) -> None:
    assert 'class="day-tabs"' not in page


def test_page_has_a_meta_description(page: str) -> None:
    (description,) = [a["content"] for t, a in elements(page) if a.get("name") == "description"]

    assert description.startswith("Schedule of PyTorch Conference Europe 2026")


def test_cancelled_session_is_struck_through_without_an_add_link(store: Store, small_schedule: Schedule) -> None:
    store.ingest(small_schedule)
    html = Http(create_app(store, clock=lambda: NOW)).get("/").text
    dropped = next(c for c in cards(html) if "cancelled" in c["class"])

    card = card_html(html, dropped["data-session-id"])

    assert '<s>Dropped talk</s> <span class="badge">Cancelled</span></a></h4>' in card
    assert 'class="google"' not in card
    assert 'class="outlook"' not in card
    assert len(cards(html)) == 4


def test_schedule_text_is_escaped(store: Store, small_schedule: Schedule) -> None:
    store.ingest(small_schedule)

    html = Http(create_app(store, clock=lambda: NOW)).get("/").text

    assert "Compilers &lt;script&gt;" in html
    assert "<script>" not in html


def test_grid_puts_concurrent_sessions_in_columns_and_spans_their_duration(
    small_schedule: Schedule,
) -> None:
    conference = small_schedule.conference
    sessions = [
        Session("a", "A", paris(9), paris(9, 30), room=Room("Hall")),
        Session("b", "B", paris(9), paris(9, 10), room=Room("Side")),
        Session("c", "C", paris(9, 40), paris(9, 52), room=Room("Hall")),
        Session("d", "D", paris(10), paris(10, 1)),
    ]

    (day,) = days(conference, sessions)

    placed = {c.id: (c.column, c.row_start, c.row_end) for c in day.cards}
    assert day.rooms == ("Hall", "Side", "No room given")
    # A one-minute session still gets the minimum of two rows.
    assert placed == {"a": (1, 1, 7), "b": (2, 1, 3), "c": (1, 9, 12), "d": (3, 13, 15)}
    assert [(slot.label, slot.row) for slot in day.slots] == [
        ("09:00", 1),
        ("09:40", 9),
        ("10:00", 13),
    ]


def test_minimum_height_stops_at_the_rooms_next_session() -> None:
    conference = Conference("C", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7))
    sessions = [
        Session("short", "Short", paris(9), paris(9, 5), room=Room("Hall")),
        Session("next", "Next", paris(9, 5), paris(9, 30), room=Room("Hall")),
    ]

    (day,) = days(conference, sessions)

    assert [(c.id, c.row_start, c.row_end) for c in day.cards] == [
        ("short", 1, 2),
        ("next", 2, 7),
    ]


def test_source_order_within_a_slot_follows_the_columns(page: str) -> None:
    at_eleven = [c for c in cards(page) if c["data-start"] == "2026-04-07T09:00:00Z"]

    columns = [int(c["style"].split(";")[0].split(":")[1]) for c in at_eleven]

    assert len(columns) >= 2
    assert columns == sorted(columns)


def test_time_headings_head_each_start_time(page: str) -> None:
    headings = re.findall(r'<h3 class="slot-time"[^>]*><time[^>]*>([0-9:]+)</time>', page)
    starts = sorted({c["data-start"] for c in cards(page)})

    assert len(headings) == len(starts)
    assert headings[0] == "11:00"
    assert headings == sorted(headings)


def test_grid_rows_follow_elapsed_time_across_a_dst_change() -> None:
    conference = Conference("C", "Europe/Paris", date(2026, 3, 29), date(2026, 3, 29))
    first = datetime(2026, 3, 29, 0, 30, tzinfo=UTC)  # 01:30 CET
    sessions = [
        Session("early", "Early", first, first + timedelta(minutes=30)),
        Session(
            "late",
            "Late",
            first + timedelta(hours=1),
            first + timedelta(hours=1, minutes=30),
        ),
    ]

    (day,) = days(conference, sessions)

    # 01:30 CET and 03:30 CEST are one hour apart, 12 five-minute rows.
    assert [(c.start_label, c.zone_label, c.row_start) for c in day.cards] == [
        ("01:30", "CET", 1),
        ("03:30", "CEST", 13),
    ]


def test_page_files_for_a_static_build_are_the_served_bytes(demo_schedule: Schedule, store: Store) -> None:
    store.ingest(demo_schedule)
    stored = store.live()
    assert stored is not None
    published = Published(stored, now=NOW, base_url="https://cal.example.org")
    app = create_app(
        store,
        base_url="https://cal.example.org",
        clock=lambda: NOW,
    )
    http = Http(app, default_headers={"accept-encoding": "identity"})

    files = dict(page_files(published, Site.of("https://cal.example.org")))

    speakers = {p.slug for s in demo_schedule.sessions for p in s.speakers}
    assert "sw.js" in files and asset_path("schedule.css") in files
    assert len([f for f in files if f.startswith("sessions/")]) == 28
    assert len([f for f in files if f.startswith("speakers/")]) == len(speakers)
    for relative, body in files.items():
        assert http.get("/" + relative.removesuffix("index.html")).content == body


def thousand_sessions() -> Schedule:
    """A generated two-day conference of 1,000 sessions in 30 rooms, 600 speakers."""
    conference = Conference("Big", "Europe/Brussels", date(2025, 2, 1), date(2025, 2, 2))
    rooms = [Room(f"Room {i}") for i in range(30)]
    people = [Speaker(f"Speaker {i}", affiliation=f"Org {i % 90}") for i in range(600)]
    first = datetime(2025, 2, 1, 8, 0, tzinfo=UTC)
    sessions = []
    for i in range(1000):
        day, slot = divmod(i // 30, 17)
        start = first + timedelta(days=day, minutes=30 * slot)
        sessions.append(
            Session(
                f"s{i:04d}",
                f"Session {i}: what we learned building a thing",
                start,
                start + timedelta(minutes=25),
                room=rooms[i % 30],
                track=Track(f"Track {i % 40}"),
                description="An abstract that only the session page carries. " * 10,
                speakers=(people[i % 600],),
            )
        )
    return Schedule(conference, tuple(sessions))


def test_a_day_of_a_1000_session_conference_is_under_300_kb_gzipped() -> None:
    published = Published(thousand_sessions(), now=NOW)
    site = Site.of("https://cal.example.org")

    first_day = page_representation(published, site)
    html = first_day.body.decode("utf-8")

    assert len(cards(html)) == 510  # one day at a time
    assert len(first_day.gzipped) < 300_000


def test_each_day_is_a_page_the_day_tabs_link_and_the_build_writes() -> None:
    published = Published(thousand_sessions(), now=NOW)
    site = Site.of("https://cal.example.org")
    root = page_representation(published, site).body.decode("utf-8")

    files = dict(page_files(published, site))
    tabs = [a["href"] for tag, a in elements(root) if tag == "a" and "data-day" in a]
    day_pages = {href: files[href + "index.html"].decode("utf-8") for href in tabs}

    assert tabs == ["days/2025-02-01/", "days/2025-02-02/", "days/all/"]
    assert [len(cards(html)) for html in day_pages.values()] == [510, 490, 1000]
    assert {c["data-day"] for c in cards(day_pages["days/2025-02-02/"])} == {"2025-02-02"}
    # Two directories down, every link climbs back to the conference's base.
    second = elements(day_pages["days/2025-02-02/"])
    assert [a["href"] for tag, a in second if tag == "a" and "data-day" in a] == [
        "../../days/2025-02-01/",
        "../../days/2025-02-02/",
        "../../days/all/",
    ]
    assert next(a["href"] for tag, a in second if tag == "a" and "data-session-link" in a) == ("../../sessions/s0510/")
    assert all(len(gzip.compress(files[href + "index.html"])) < 300_000 for href in tabs[:2])


def test_day_pages_are_served_as_built(store: Store) -> None:
    store.ingest(thousand_sessions())
    stored = store.live()
    assert stored is not None
    published = Published(stored, now=NOW, base_url="https://cal.example.org")
    http = Http(
        create_app(store, base_url="https://cal.example.org", clock=lambda: NOW),
        default_headers={"accept-encoding": "identity"},
    )
    files = dict(page_files(published, Site.of("https://cal.example.org")))

    for relative in ("days/2025-02-02/index.html", "days/all/index.html"):
        assert http.get("/" + relative.removesuffix("index.html")).content == files[relative]
    assert http.get("/days/2025-02-03/").status == 404
    # The path names the day: a day in the query string does not change it.
    filtered = http.get("/days/2025-02-02/?day=2025-02-01&room=room-3").text
    assert {(c["data-day"], c["data-room"]) for c in cards(filtered) if "hidden" not in c} == {("2025-02-02", "room-3")}
