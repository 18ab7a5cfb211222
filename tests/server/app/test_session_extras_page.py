"""The session page's block of what the source carries: subtitle, language, do-not-record and the
source's links with their kind; a link that is not http(s) is never an href."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from feeds.model import Link, Schedule
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http


def test_the_session_page_shows_what_the_source_carries(demo_schedule: Schedule, tmp_path: Path) -> None:
    first = dataclasses.replace(
        demo_schedule.sessions[0],
        links=(
            Link("https://video.example.org/talk.webm", "Video recording (WebM)", "recording"),
            Link("https://example.org/slides.pdf", "Slides", "slides"),
            Link("javascript:alert(1)", "Scripted", "link"),
        ),
        language="en",
        subtitle="A longer look",
        do_not_record=True,
    )
    schedule = dataclasses.replace(demo_schedule, sessions=(first, *demo_schedule.sessions[1:]))
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(schedule)
        html = Http(create_app(store, clock=lambda: NOW)).get(f"/sessions/{first.id}/").text

    block = html.split('<section class="source-extras"')[1].split("</section>")[0]
    assert '<p class="subtitle">A longer look</p>' in block
    assert '<p class="language">Language: en</p>' in block
    assert '<p class="do-not-record">Not recorded, at the speakers\' request.</p>' in block
    assert [line for line in block.splitlines() if line.startswith("<li")] == [
        '<li data-kind="recording"><a href="https://video.example.org/talk.webm" rel="noopener">Video recording (WebM)'
        '</a> <span class="link-kind">(recording)</span></li>',
        '<li data-kind="slides"><a href="https://example.org/slides.pdf" rel="noopener">Slides</a>'
        ' <span class="link-kind">(slides)</span></li>',
    ]
    assert "javascript:" not in html
