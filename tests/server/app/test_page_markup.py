"""The pages whose markup is made in Python (server/pages/detail_html.py) escape schedule text as
the templates' autoescape does: a session whose every text holds markup shows it as text on its
page, its speaker's page, its track's and room's pages, the speakers' directory and the
timetable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from markupsafe import escape

from feeds.model import Conference, Level, Link, Room, Schedule, Session, Speaker, Track
from server.links import Site
from server.pages.detail_html import esc
from server.snapshot.published import Published
from tests.helpers.build_inspection import site_files

HOSTILE = "<script>alert('x')</script> & \"quoted\""
ESCAPED = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &#34;quoted&#34;"
PAGES = (
    "sessions/h1/index.html",
    "speakers/mallory/index.html",
    "tracks/track/index.html",
    "rooms/room/index.html",
    "speakers/index.html",
    "index.html",
)


def hostile_site() -> dict[str, str]:
    start = datetime(2026, 4, 6, 8, 0, tzinfo=UTC)
    session = Session(
        "h1",
        HOSTILE,
        start,
        start + timedelta(minutes=40),
        kind=HOSTILE,
        room=Room(HOSTILE, slug="room"),
        track=Track(HOSTILE, slug="track"),
        level=Level(HOSTILE, slug="level"),
        description=HOSTILE,
        speakers=(Speaker(HOSTILE, slug="mallory", role=HOSTILE, affiliation=HOSTILE, bio=HOSTILE),),
        links=(Link("https://example.org/?a=1&b=2", title=HOSTILE, kind=HOSTILE),),
        language=HOSTILE,
        subtitle=HOSTILE,
    )
    conference = Conference("Hostile", "Europe/Paris", start.date(), start.date(), slug="hostile")
    published = Published(Schedule(conference, (session,)), now=start, base_url="https://cal.example.org")
    return {path: body.decode() for path, body in site_files(published, Site.of("https://cal.example.org"))}


def test_schedule_text_on_the_pages_made_in_python_is_escaped_everywhere() -> None:
    files = hostile_site()

    pages = [files[path] for path in PAGES]

    assert [HOSTILE in page for page in pages] == [False] * len(PAGES)
    assert ["<script>" in page for page in pages] == [False] * len(PAGES)
    assert [ESCAPED in page for page in pages] == [True] * len(PAGES)


def test_a_links_query_is_escaped_in_its_href() -> None:
    files = hostile_site()

    page = files["sessions/h1/index.html"]

    assert 'href="https://example.org/?a=1&amp;b=2"' in page


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a & b", "a &amp; b"),
        ("a < b", "a &lt; b"),
        ("a > b", "a &gt; b"),
        ("it's", "it&#39;s"),
        ('say "hi"', "say &#34;hi&#34;"),
        ("Room 26 — Hall Z", "Room 26 — Hall Z"),
    ],
)
def test_each_markup_character_is_escaped_as_autoescape_does_even_alone(text: str, escaped: str) -> None:
    assert (esc(text), str(escape(text))) == (escaped, escaped)
