"""The HTML index at `/`: every feed with subscribe (webcal://), Google Calendar and download links.

Rendered from Jinja2 templates with autoescaping on (schedule text is third-party input). The
later schedule page extends `base.html` and adds to `static/`, which the app serves itself.
"""

from __future__ import annotations

from itertools import groupby
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from feeds.catalogue import day_name
from server.app.api import feed_entries
from server.app.conditional import HTML, Representation
from server.app.links import Site
from server.app.published import Published, last_modified

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"

KIND_LABELS = {
    "all": "Everything",
    "day": "By day",
    "track": "By track",
    "room": "By room",
    "level": "By level",
    "kind": "By session type",
    "speaker": "By speaker",
}

_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render_index(published: Published, site: Site) -> bytes:
    conference = published.conference
    groups: list[dict[str, Any]] = []
    # groupby keeps the catalogue's own order of kinds and of feeds within a kind.
    for kind, entries in groupby(
        feed_entries(published, site), key=lambda e: str(e["kind"])
    ):
        groups.append(
            {
                "kind": kind,
                "label": KIND_LABELS.get(kind, kind.title()),
                "feeds": list(entries),
            }
        )
    # catalogue.day_name, not strftime: the page must not depend on the process locale.
    when = day_name(conference.start_date)
    if conference.end_date != conference.start_date:
        when = f"{when} – {day_name(conference.end_date)}"
    html = _env.get_template("index.html").render(
        conference=conference, when=when, groups=groups, site=site
    )
    return html.encode("utf-8")


def index_representation(published: Published, site: Site) -> Representation:
    return published.memo(
        ("index", site.base_url),
        lambda: Representation(
            render_index(published, site),
            HTML,
            last_modified(published.schedule.sessions),
        ),
    )
