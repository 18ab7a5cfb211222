"""Session and speaker pages: what they say, how they link, and that they are cached like the rest."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from datetime import date, datetime, time, timedelta
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

from feeds.model import Conference, Schedule, Session, Speaker, Status, Track
from server.links import Site
from server.pages.detail_pages import speaker_representation, speakers
from server.pages.index_pages import facet_representation
from server.snapshot.published import Published
from tests.helpers.app_helpers import NOW, Http, paris


def session_of(http: Http, title: str) -> dict[str, object]:
    sessions: list[dict[str, object]] = http.get("/api/sessions").json_doc()["sessions"]
    return next(s for s in sessions if s["title"] == title)


def test_session_page_has_everything_about_the_session(http: Http) -> None:
    session = session_of(http, "TorchJD: Jacobian Descent in PyTorch")

    reply = http.get(f"/sessions/{session['id']}/")
    html = reply.text

    assert reply.status == 200
    assert "<h1>TorchJD: Jacobian Descent in PyTorch</h1>" in html
    assert 'Tuesday 7 April 2026, <time datetime="2026-04-07T11:45:00+02:00">11:45</time>' in html
    assert "(Europe/Paris)" in html
    # The room and the track link to the pages of their sessions.
    assert '<dd class="room"><a href="../../rooms/founders-cafe/">Founders Cafe</a></dd>' in html
    assert '<dd class="track"><a href="../../tracks/training-systems/">Training Systems</a></dd>' in html
    assert '<dd class="level">Intermediate</dd>' in html
    assert '<a href="../../speakers/valerian-rey/">Valérian Rey</a>' in html
    assert '<h2 id="abstract-title">Abstract</h2>' in html
    assert f'href="../../sessions/{session["id"]}.ics" download' in html
    assert 'class="pick js-only" data-action="pick"' in html


def test_session_page_google_and_outlook_links_carry_the_abstract(http: Http) -> None:
    session = session_of(http, "TorchJD: Jacobian Descent in PyTorch")
    html = http.get(f"/sessions/{session['id']}/").text

    links = {
        cls: href.replace("&amp;", "&") for cls, href in re.findall(r'<a class="(google|outlook)" href="([^"]+)"', html)
    }
    outlook = parse_qs(urlsplit(links["outlook"]).query)
    google = parse_qs(urlsplit(links["google"]).query)

    assert outlook["startdt"] == ["2026-04-07T09:45:00Z"]
    assert outlook["enddt"] == ["2026-04-07T09:55:00Z"]
    assert outlook["subject"] == ["TorchJD: Jacobian Descent in PyTorch"]
    assert outlook["location"] == ["Founders Cafe, Paris, France"]
    assert google["details"][0] == outlook["body"][0] != ""


def test_speaker_page_lists_their_sessions_and_their_feed(http: Http) -> None:
    reply = http.get("/speakers/valerian-rey/")
    html = reply.text

    assert reply.status == 200
    assert "<h1>Valérian Rey</h1>" in html
    assert '<p class="affiliation-line">Simplex Lab</p>' in html
    assert re.findall(r'<li data-session-id="([0-9a-f]+)"', html) == [
        session_of(http, "TorchJD: Jacobian Descent in PyTorch")["id"]
    ]
    assert 'href="webcal://testserver/feeds/speaker/valerian-rey.ics" data-speaker-feed' in html
    assert 'href="../../feeds/speaker/valerian-rey.ics" download' in html


def test_speaker_without_slash_is_redirected_and_unknown_ones_are_404(http: Http) -> None:
    assert http.get("/speakers/valerian-rey").status in (307, 308)
    assert http.get("/speakers/nobody-here/").status == 404
    assert http.get("/sessions/ffffffffff/").status == 404
    assert http.get("/speakers/Bad%20Slug/").status == 400


def test_detail_pages_have_etags_and_a_description(http: Http) -> None:
    first = http.get("/speakers/valerian-rey/")
    again = http.get("/speakers/valerian-rey/", if_none_match=first.headers["etag"])

    assert again.status == 304
    assert '<meta name="description" content="Valérian Rey (Simplex Lab) at ' in first.text
    assert "default-src 'self'" in first.headers["content-security-policy"]


def test_track_room_and_speaker_index_pages_list_what_the_feeds_hold(http: Http) -> None:
    sessions = http.get("/api/sessions").json_doc()["sessions"]
    training = sorted(s["title"] for s in sessions if s["track"] == "Training Systems")

    track = http.get("/tracks/training-systems/").text
    tracks = http.get("/tracks/").text
    rooms = http.get("/rooms/").text
    directory = http.get("/speakers/").text

    assert (
        sorted(html.unescape(t) for t in re.findall(r'<a href="../../sessions/[^"]+/">([^<]+)</a>', track)) == training
    )
    assert (
        f'<a href="../tracks/training-systems/">Training Systems</a> <span class="note">{len(training)} sessions</span>'
        in tracks
    )
    assert '<a href="../rooms/founders-cafe/">Founders Cafe</a>' in rooms
    assert '<h2 id="speaker-valerian-rey"><a href="../speakers/valerian-rey/">Valérian Rey</a></h2>' in directory
    assert http.get("/tracks/no-such-track/").status == 404


def test_a_track_page_lists_a_session_after_midnight_under_the_day_it_belongs_to() -> None:
    zone, track = ZoneInfo("Europe/Paris"), Track("Talks")

    def at(day: int, hour: int) -> Session:
        start = datetime(2026, 4, day, hour, tzinfo=zone)
        return Session(f"s{day}-{hour}", f"Talk {day} {hour}", start, start + timedelta(minutes=30), track=track)

    # A day changes at 04:00: the talk at 01:00 on Tuesday is Monday's, as the day feeds have it,
    # though it is the first of that day the track has.
    conference = Conference("Conf", "Europe/Paris", date(2026, 4, 6), date(2026, 4, 7), day_change=time(4))
    published = Published(Schedule(conference, (at(7, 1), at(7, 10))), now=NOW)
    feed = published.feed("track", "talks")
    assert feed is not None

    page = facet_representation(published, Site.of("https://cal.example.org"), "track", feed).body.decode()

    assert re.findall(r"<h2>([^<]+)</h2>", page) == ["Monday 6 April 2026", "Tuesday 7 April 2026"]
    assert re.findall(r'data-session-id="([^"]+)"', page) == ["s7-1", "s7-10"]


def test_a_speaker_page_gives_a_session_after_midnight_its_own_date() -> None:
    start = datetime(2026, 4, 7, 0, 30, tzinfo=ZoneInfo("Europe/Paris"))
    late = Session("s1", "Late talk", start, start + timedelta(minutes=30), speakers=(Speaker("Ana"),))
    # A day changes at 04:00: the talk is Monday's, but starts on Tuesday.
    conference = Conference("Conf", "Europe/Paris", date(2026, 4, 6), date(2026, 4, 7), day_change=time(4))
    published = Published(Schedule(conference, (late,)), now=NOW)

    page = speaker_representation(published, Site.of("https://cal.example.org"), speakers(published)["ana"]).body

    assert re.findall(rb'<time datetime="([^"]+)">([^<]+)</time>', page)[0] == (
        b"2026-04-07T00:30:00+02:00",
        b"2026-04-07 00:30",
    )


def talk(session_id: str, hour: int, *speakers: Speaker, status: Status = Status.CONFIRMED) -> Session:
    return Session(session_id, f"Talk {session_id}", paris(hour), paris(hour, 30), speakers=speakers, status=status)


def entries(published: Published) -> dict[str, tuple[str, list[str]]]:
    """Each speaker's entry by slug: the name that names them and their sessions' ids."""
    return {slug: (e.speaker.name, [s.id for s in e.sessions]) for slug, e in speakers(published).items()}


def test_a_speaker_has_their_sessions_in_time_order_named_by_the_first() -> None:
    ana, ana_again, bo = Speaker("Ana Lopez"), Speaker("Ana López", slug="ana-lopez"), Speaker("Bo")
    sessions = (talk("s1", 9, ana, bo), talk("s2", 11, ana_again), talk("s3", 10, bo, Speaker("Bo", slug="bo")))
    schedule = Schedule(Conference("Conf", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7)), sessions)

    found = entries(Published(schedule, now=NOW))

    # A session naming one speaker twice is theirs once, as in their feed.
    assert found == {"ana-lopez": ("Ana Lopez", ["s1", "s2"]), "bo": ("Bo", ["s1", "s3"])}


def test_a_speaker_of_withdrawn_sessions_alone_has_no_entry() -> None:
    gone = replace(talk("s1", 9, Speaker("Ana")), status=Status.CANCELLED, modified=NOW - timedelta(days=60))
    schedule = Schedule(Conference("Conf", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7)), (gone,))

    assert entries(Published(schedule, now=NOW)) == {}


def test_a_speakers_entry_follows_a_change_published_over_a_snapshot() -> None:
    ana, bo = Speaker("Ana"), Speaker("Bo")
    conference = Conference("Conf", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7))
    first = Published(Schedule(conference, (talk("s1", 9, ana), talk("s2", 10, ana))), now=NOW, lazy=True)
    moved = talk("s1", 11, bo)

    found = entries(
        Published(
            Schedule(conference, (talk("s2", 10, ana), moved)), now=NOW, previous=first, lazy=True, written=[moved]
        )
    )

    assert found == {"ana": ("Ana", ["s2"]), "bo": ("Bo", ["s1"])}
