"""schedule.xml and schedule.json in chunks (head, one per day, tail): their join is the document
one ElementTree serialisation or one json.dumps of the whole writes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feeds.exports.c3voc_json import C3vocJsonExporter
from feeds.exports.chunks import ChunkedExporter, DayChunk
from feeds.exports.frab_layout import FrabEvent, clock, duration_text
from feeds.exports.frab_xml import FrabXmlExporter, _clean, _http
from feeds.ical.event import session_url
from feeds.model import Room, Schedule, Session, Speaker, Track
from feeds.pipeline import load_schedule
from tests.helpers.held_texts import HeldTexts
from tests.helpers.schedules import T0, edge_schedule

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


def element_tree_day(chunk: DayChunk, base_url: str | None) -> bytes:
    """The day as ElementTree writes it inside the whole document: the oracle for the direct writer."""
    day = chunk.day

    def add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
        child = ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})
        if text:
            child.text = _clean(text)
        return child

    element = ET.Element(
        "day", index=str(day.index), date=day.date.isoformat(), start=day.start.isoformat(), end=day.end.isoformat()
    )
    for room in day.rooms:
        room_el = add(element, "room", name=room.name, guid=room.guid)
        for event in room.events:
            session = event.session
            el = add(room_el, "event", id=str(event.number), guid=event.guid)
            for tag, text in (
                ("date", event.start.isoformat()),
                ("start", clock(event.start)),
                ("duration", duration_text(event.duration, days=True)),
                ("room", event.room),
                ("slug", event.slug),
            ):
                add(el, tag, text)
            url = _http(session.url) or _http(session_url(session, base_url))
            if url:
                add(el, "url", url)
            add(el, "title", session.title)
            add(el, "subtitle")
            add(el, "track", session.track.name if session.track else None)
            add(el, "type", session.kind)
            add(el, "abstract")
            add(el, "description", session.description)
            persons = add(el, "persons")
            for speaker in session.speakers:
                add(persons, "person", speaker.name)
            links = add(el, "links")
            if _http(session.url):
                add(links, "link", session.title, href=session.url or "")
    ET.indent(element, space="  ", level=1)
    return ("\n  " + ET.tostring(element, encoding="unicode")).encode("utf-8")


TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
NAME = TEXT.filter(str.strip)  # rooms, tracks and speakers need one


@st.composite
def sessions(draw: st.DrawFn) -> Session:
    start = T0 + timedelta(minutes=draw(st.integers(0, 3000)))
    return Session(
        draw(st.text("0123456789abcdef", min_size=4, max_size=6)),
        draw(TEXT),
        start,
        start + timedelta(minutes=draw(st.integers(0, 2000))),
        kind=draw(TEXT),
        room=draw(st.none() | NAME.map(Room)),
        track=draw(st.none() | NAME.map(Track)),
        description=draw(TEXT),
        speakers=tuple(Speaker(name) for name in draw(st.lists(NAME, max_size=2))),
        url=draw(st.none() | TEXT.map(lambda t: "https://example.org/" + t) | TEXT),
    )


@given(st.lists(sessions(), min_size=1, max_size=6, unique_by=lambda s: s.id), st.none() | st.just("https://c.example"))
@settings(max_examples=150, deadline=None)
def test_each_day_is_what_element_tree_writes_for_it(found: list[Session], base_url: str | None) -> None:
    schedule = Schedule(edge_schedule().conference, tuple(found))

    chunks = FrabXmlExporter().chunks(schedule, now=NOW, base_url=base_url)

    assert [chunk.make() for chunk in chunks.days] == [element_tree_day(chunk, base_url) for chunk in chunks.days]


@pytest.mark.parametrize("exporter", [FrabXmlExporter(), C3vocJsonExporter()], ids=["frab-xml", "c3voc-json"])
def test_a_day_joined_from_kept_event_texts_is_the_same_and_renders_only_the_events_not_kept(
    congress: Schedule, exporter: ChunkedExporter
) -> None:
    keeper: HeldTexts[FrabEvent] = HeldTexts(lambda event: event.session.id)
    chunks = exporter.chunks(congress, now=NOW, base_url="https://cal.example.org")
    whole = chunks.join(lambda chunk: chunk.make_with(keeper))
    everything, dropped = list(keeper.rendered), congress.sessions[7].id
    keeper.rendered.clear()
    del keeper.held[dropped]

    again = chunks.join(lambda chunk: chunk.make_with(keeper))

    assert (whole, again) == (exporter.render(congress, now=NOW, base_url="https://cal.example.org"),) * 2
    assert sorted(everything) == sorted(s.id for s in congress.sessions if not s.cancelled)
    assert keeper.rendered == [dropped]
