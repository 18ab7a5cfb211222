"""Only http(s) links from a source are kept: a `javascript:`, `data:`, `file:` or relative link in
any reader's URL field is dropped at ingest with a warning naming the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

from feeds.pipeline import load_schedule
from feeds.web_links import web_link
from tests.helpers.link_calendars import two_linked_sessions

ICS = two_linked_sessions("javascript:alert(1)", "https://example.org/linked")

FRAB_XML = """<?xml version="1.0" encoding="UTF-8"?>
<schedule>
  <conference>
    <title>Link Con</title>
    <url>javascript:alert(document.domain)</url>
    <time_zone_name>Europe/Berlin</time_zone_name>
  </conference>
  <day date="2025-03-01" index="1">
    <room name="Hall A">
      <event guid="a1">
        <date>2025-03-01T10:00:00+01:00</date>
        <start>10:00</start>
        <duration>00:30</duration>
        <title>Scripted</title>
        <links><link href="JavaScript:alert(1)">Home</link></links>
      </event>
      <event guid="a2">
        <date>2025-03-01T11:00:00+01:00</date>
        <start>11:00</start>
        <duration>00:30</duration>
        <title>Data</title>
        <url>data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;</url>
      </event>
    </room>
  </day>
</schedule>
"""


def pretalx_json() -> str:
    def event(guid: str, title: str, start: str, url: str) -> dict[str, object]:
        return {"guid": guid, "title": title, "date": f"2025-03-01T{start}:00+01:00", "start": start,
                "duration": "00:30", "room": "Hall A", "url": url, "persons": []}  # fmt: skip

    rooms = {
        "Hall A": [
            event("p1", "Scripted", "10:00", "vbscript:msgbox(1)"),
            event("p2", "Local", "11:00", "file:///etc/passwd"),
        ]
    }
    day = {"index": 1, "date": "2025-03-01", "rooms": rooms}
    conference = {"title": "Link Con", "time_zone_name": "Europe/Berlin", "days": [day]}
    return json.dumps({"schedule": {"version": "1", "conference": conference}}, indent=1)


def sched_export_json() -> str:
    rows = [
        {"event_key": "1", "name": "Scripted", "event_start": "2025-03-01 10:00", "event_end": "2025-03-01 10:30",
         "url": "javascript:alert(1)"},
        {"event_key": "2", "name": "Relative", "event_start": "2025-03-01 11:00", "event_end": "2025-03-01 11:30",
         "url": "/event/2"},
        {"event_key": "3", "name": "Linked", "event_start": "2025-03-01 12:00", "event_end": "2025-03-01 12:30",
         "url": "http://example.org/3"},
    ]  # fmt: skip
    return json.dumps(rows, indent=1)


def loaded(path: Path, text: str) -> tuple[list[tuple[str, str | None]], list[str], str | None]:
    path.write_text(text, encoding="utf-8")
    result = load_schedule([str(path)], "Europe/Berlin")
    urls = [(s.title, s.url) for s in result.schedule.sessions]
    return urls, [str(w) for w in result.warnings], result.schedule.conference.source_url


def test_an_ics_javascript_url_is_dropped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "links.ics"

    urls, warnings, _ = loaded(path, ICS)

    assert urls == [("Scripted", None), ("Linked", "https://example.org/linked")]
    assert warnings == [f"{path}:5: Scripted: URL field 'javascript:alert(1)' is not an http or https link; dropped"]


def test_frab_xml_links_and_conference_url_that_are_not_http_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "schedule.xml"

    urls, warnings, conference_url = loaded(path, FRAB_XML)

    assert (urls, conference_url) == ([("Scripted", None), ("Data", None)], None)
    assert warnings == [
        f"{path}:10: Scripted: URL field 'JavaScript:alert(1)' is not an http or https link; dropped",
        f"{path}:10: Scripted: link 'JavaScript:alert(1)' is not an http or https link; dropped",
        f"{path}:17: Data: URL field 'data:text/html,<script>alert(1)</script>' is not an http or https link; dropped",
        f"{path}: the conference's URL field 'javascript:alert(document.domain)' is not an http or https link; dropped",
    ]


def test_pretalx_json_urls_that_are_not_http_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "schedule.json"

    urls, warnings, _ = loaded(path, pretalx_json())

    assert urls == [("Scripted", None), ("Local", None)]
    assert [w.partition(": ")[2] for w in warnings] == [
        "Scripted: URL field 'vbscript:msgbox(1)' is not an http or https link; dropped",
        "Local: URL field 'file:///etc/passwd' is not an http or https link; dropped",
    ]
    assert [w.partition(": ")[0].startswith(str(path)) for w in warnings] == [True, True]


def test_sched_export_urls_that_are_not_http_are_dropped(tmp_path: Path) -> None:
    path = tmp_path / "export.json"

    urls, warnings, _ = loaded(path, sched_export_json())

    assert urls == [("Scripted", None), ("Relative", None), ("Linked", "http://example.org/3")]
    assert [w.partition(": ")[2] for w in warnings] == [
        "Scripted: URL field 'javascript:alert(1)' is not an http or https link; dropped",
        "Relative: URL field '/event/2' is not an http or https link; dropped",
    ]


def test_only_absolute_http_and_https_urls_with_a_host_are_links() -> None:
    given = [
        "https://example.org/a b?c#d",
        "HTTP://EXAMPLE.ORG",
        "javascript:alert(1)",
        " javascript:alert(1)",
        "java\tscript:alert(1)",
        "https://example.org/\nx",
        "data:text/html,x",
        "vbscript:x",
        "file:///etc/passwd",
        "//example.org/x",
        "/relative",
        "http://",
        "https:///path",
        None,
    ]

    kept = [web_link(url) for url in given]

    assert kept == ["https://example.org/a b?c#d", "HTTP://EXAMPLE.ORG"] + [None] * 12
