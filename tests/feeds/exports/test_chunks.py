"""schedule.xml and schedule.json in chunks (head, one per day, tail): their join is the document
one ElementTree serialisation or one json.dumps of the whole writes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest
from schedules import edge_schedule

from feeds.exports.c3voc_json import C3vocJsonExporter
from feeds.exports.frab_xml import FrabXmlExporter
from feeds.model import Schedule
from feeds.pipeline import load_schedule

NOW = datetime(2026, 4, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def congress(shared_data: Path) -> Schedule:
    """A real four-day schedule with hundreds of sessions (38C3)."""
    return load_schedule([str(shared_data / "ccc_38c3_2024_schedule.xml")], None).schedule


def whole_xml(body: bytes) -> bytes:
    """The document as one ElementTree serialisation of its whole tree writes it."""
    root = ET.fromstring(body)
    ET.indent(root, space="  ")
    written: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return written + b"\n"


def whole_json(body: bytes) -> bytes:
    return json.dumps(json.loads(body), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@pytest.mark.parametrize("base_url", [None, "https://cal.example.org"])
def test_the_xml_chunks_join_to_the_whole_trees_serialisation(congress: Schedule, base_url: str | None) -> None:
    chunks = FrabXmlExporter().chunks(congress, now=NOW, base_url=base_url)

    body = chunks.join()

    assert len(chunks.days) == 4
    assert body == whole_xml(body)
    assert body == FrabXmlExporter().render(congress, now=NOW, base_url=base_url)


@pytest.mark.parametrize("base_url", [None, "https://cal.example.org"])
def test_the_json_chunks_join_to_one_dump_of_the_whole(congress: Schedule, base_url: str | None) -> None:
    chunks = C3vocJsonExporter().chunks(congress, now=NOW, base_url=base_url)

    body = chunks.join()

    assert len(chunks.days) == 4
    assert body == whole_json(body)
    assert [day["index"] for day in json.loads(body)["schedule"]["conference"]["days"]] == [1, 2, 3, 4]


def test_edge_cases_join_to_the_whole_document() -> None:
    schedule = edge_schedule()

    xml, document = (e.chunks(schedule, now=NOW).join() for e in (FrabXmlExporter(), C3vocJsonExporter()))

    assert xml == whole_xml(xml)
    assert document == whole_json(document)


def test_a_schedule_without_sessions_is_head_and_tail() -> None:
    schedule = Schedule(edge_schedule().conference, ())

    xml, document = (e.chunks(schedule, now=NOW) for e in (FrabXmlExporter(), C3vocJsonExporter()))

    assert (xml.days, document.days) == ((), ())
    assert xml.join() == whole_xml(xml.join())
    assert json.loads(document.join())["schedule"]["conference"]["days"] == []
