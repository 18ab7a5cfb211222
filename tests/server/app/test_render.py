"""Pages share their conference's frame (render.py), rendered once per conference and depth:
a page must still show its own conference and link from its own depth."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, time
from pathlib import Path

from jinja2 import Environment, FileSystemLoader

from feeds.model import Conference, Room, Schedule, Session
from server.links import Site
from server.pages.detail_pages import session_representation
from server.pages.render import TEMPLATES, _Compiled, frame
from server.snapshot.published import Published
from tests.helpers.app_helpers import NOW, paris

CONFERENCE = Conference("Conf & Co", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7), city="Paris")
TALK = Session("s1", "Talk", paris(11), paris(11, 30), room=Room("Hall"))
SITE = Site.of("https://cal.example.org")


def framed_lines(body: bytes) -> list[str]:
    """The page's lines that come from its frame and name its conference."""
    return [line for line in body.decode().splitlines() if line.startswith(("<body", '<p class="crumbs">'))]


def session_page(conference: Conference) -> bytes:
    published = Published(Schedule(conference, (TALK,)), now=NOW)
    return session_representation(published, SITE, TALK).body


def test_a_renamed_conference_gets_a_frame_of_its_own() -> None:
    renamed = replace(CONFERENCE, name="Renamed <Conf>", slug="renamed", timezone="Europe/London", day_change=time(6))
    session_page(CONFERENCE)

    lines = framed_lines(session_page(renamed))

    assert lines == [
        '<body class="detail-page" data-conference="renamed" data-timezone="Europe/London" data-start-date="2026-04-07" data-end-date="2026-04-07" '
        'data-day-change="06:00" data-storage-key="confcal:picks:renamed" data-api="../../api/picks" data-home="../../" '
        'data-sw="../../sw.js">',
        '<p class="crumbs"><a href="../../">Renamed &lt;Conf&gt;: schedule</a></p>',
    ]


def test_a_frame_links_from_its_own_depth() -> None:
    top, down = frame(CONFERENCE, 0), frame(CONFERENCE, 2)

    assert (top.crumbs, down.crumbs) == (
        '<p class="crumbs"><a href="./">Conf &amp; Co: schedule</a></p>',
        '<p class="crumbs"><a href="../../">Conf &amp; Co: schedule</a></p>',
    )
    assert str(down.head).replace('"../../static/', '"static/') == str(top.head) != str(down.head)


def templates(cache: _Compiled) -> Environment:
    """An environment loading confcal's templates, its compiled templates kept in `cache`."""
    return Environment(loader=FileSystemLoader(TEMPLATES), bytecode_cache=cache, autoescape=True)


def test_a_compiled_template_is_kept_for_the_next_process(tmp_path: Path) -> None:
    templates(_Compiled(str(tmp_path))).get_template("_day.html")
    kept = sorted(tmp_path.iterdir())

    later = _Compiled(str(tmp_path))
    env = templates(later)
    source, filename, _ = FileSystemLoader(TEMPLATES).get_source(env, "_day.html")
    bucket = later.get_bucket(env, "_day.html", filename, source)

    assert [path.suffix for path in kept] == [".cache"]
    assert bucket.code is not None  # loaded, not compiled again


def test_a_cache_that_cannot_be_written_only_compiles_again(tmp_path: Path) -> None:
    missing = tmp_path / "gone"

    context = {"asset": lambda name: f"static/{name}"}

    made = templates(_Compiled(str(missing))).get_template("_subscribe_intro.html").render(context)

    assert made == templates(_Compiled(str(tmp_path))).get_template("_subscribe_intro.html").render(context)
    assert "static/alarm_choice.js" in made
    assert not missing.exists()
