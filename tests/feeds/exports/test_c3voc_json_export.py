"""The c3voc-json export: valid against c3voc's JSON Schema (formats checked), deterministic, read back."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import UTC, datetime

from feeds.exports import EXPORTERS
from feeds.pipeline import Loaded
from feeds.sources.documents import Document
from feeds.sources.frab_json import READER
from tests.helpers.schedules import edge_schedule

EXPORT = EXPORTERS["c3voc-json"]
NOW = datetime(2026, 4, 1, tzinfo=UTC)


def test_declares_name_extension_and_media_type() -> None:
    assert (EXPORT.name, EXPORT.extension, EXPORT.media_type) == ("c3voc-json", "json", "application/json")


def test_seed_export_validates_and_reads_back(seed_loaded: Loaded, c3voc_schema: Callable[[bytes], list[str]]) -> None:
    body = EXPORT.render(seed_loaded.schedule, now=NOW, base_url="https://cal.example.org")
    batch = READER.read([Document("seed.json", body.decode())], None)

    assert c3voc_schema(body) == []
    assert sorted((s.title, s.start, s.end, s.room) for s in batch.sessions) == sorted(
        (s.title, s.start, s.end, s.room.name if s.room else None) for s in seed_loaded.schedule.sessions
    )
    assert (batch.zone, batch.conference) == ("Europe/Paris", seed_loaded.schedule.conference.name)


def test_edge_cases_validate(c3voc_schema: Callable[[bytes], list[str]]) -> None:
    body = EXPORT.render(edge_schedule(), now=NOW)
    conference = json.loads(body)["schedule"]["conference"]
    events = [e for day in conference["days"] for room in day["rooms"].values() for e in room]

    assert c3voc_schema(body) == []
    assert (conference["acronym"], conference["time_zone_name"]) == ("ec__", "Europe/Brussels")
    assert sorted(e["duration"] for e in events) == ["00:30", "00:30", "26:00"]  # the schema wants hours


def test_a_zone_outside_the_schemas_pattern_is_left_out(c3voc_schema: Callable[[bytes], list[str]]) -> None:
    body = EXPORT.render(edge_schedule("Etc/GMT-1"), now=NOW)

    assert c3voc_schema(body) == []
    assert "time_zone_name" not in json.loads(body)["schedule"]["conference"]


def test_identical_content_gives_identical_bytes() -> None:
    schedule = edge_schedule()
    shuffled = dataclasses.replace(schedule, sessions=tuple(reversed(schedule.sessions)))

    assert EXPORT.render(schedule, now=NOW) == EXPORT.render(shuffled, now=NOW)
