"""confcal's own JSON and the ics export."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta

from feeds.catalogue import FeedKind, catalogue, partition
from feeds.exports import EXPORTERS
from feeds.ical import render_calendar
from feeds.pipeline import Loaded
from tests.helpers.schedules import edge_schedule

NOW = datetime(2025, 2, 3, tzinfo=UTC)


def test_the_registry_names_every_format_once() -> None:
    assert sorted((e.name, e.extension, e.media_type) for e in EXPORTERS.values()) == [
        ("c3voc-json", "json", "application/json"),
        ("frab-xml", "xml", "application/xml; charset=utf-8"),
        ("ics", "ics", "text/calendar; charset=utf-8"),
        ("json", "json", "application/json"),
    ]


def test_json_holds_every_session_with_its_status_in_utc() -> None:
    document = json.loads(EXPORTERS["json"].render(edge_schedule(), now=NOW))
    by_id = {s["id"]: s for s in document["sessions"]}

    assert (document["format"], document["version"], document["conference"]["timezone"]) == (
        "confcal-schedule",
        1,
        "Europe/Brussels",
    )
    assert sorted(by_id) == ["a1", "b2", "c3", "d4"]
    assert (by_id["c3"]["status"], by_id["a1"]["start"], by_id["a1"]["end"]) == (
        "cancelled",
        "2025-02-01T09:00:00Z",
        "2025-02-01T09:30:00Z",
    )
    assert by_id["a1"]["speakers"] == [
        {"name": "Ada Lovelace", "slug": "ada-lovelace", "role": None, "affiliation": None, "bio": "Analyst"}
    ]
    assert by_id["a1"]["uid"] == "a1@ec.confcal"


def test_json_bytes_do_not_depend_on_session_order() -> None:
    schedule = edge_schedule()
    shuffled = dataclasses.replace(schedule, sessions=tuple(reversed(schedule.sessions)))

    assert EXPORTERS["json"].render(schedule, now=NOW) == EXPORTERS["json"].render(shuffled, now=NOW)


def test_ics_is_the_all_sessions_feed(seed_loaded: Loaded) -> None:
    schedule = seed_loaded.schedule
    spec = next(s for s in catalogue(schedule) if s.kind is FeedKind.ALL)
    feed = render_calendar(
        schedule.conference,
        partition(schedule, now=NOW)[(FeedKind.ALL, "")],
        title=spec.title,
        base_url="https://x.example",
    )

    assert EXPORTERS["ics"].render(schedule, now=NOW, base_url="https://x.example") == feed


def test_ics_keeps_a_recently_cancelled_session_and_drops_an_old_one() -> None:
    schedule = edge_schedule()
    soon = EXPORTERS["ics"].render(schedule, now=NOW)
    later = EXPORTERS["ics"].render(schedule, now=NOW + timedelta(days=60))

    assert (soon.count(b"STATUS:CANCELLED"), later.count(b"STATUS:CANCELLED")) == (1, 0)
