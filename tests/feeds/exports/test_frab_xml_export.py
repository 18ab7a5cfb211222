"""The frab-xml export: valid against the c3voc XSD, deterministic, and read back unchanged."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta

from feeds.exports import EXPORTERS
from feeds.model import Schedule
from feeds.pipeline import Loaded
from feeds.sources.documents import Document
from feeds.sources.frab_xml import READER
from tests.helpers.schedules import T0, edge_schedule

EXPORT = EXPORTERS["frab-xml"]
NOW = datetime(2026, 4, 1, tzinfo=UTC)


def render(schedule: Schedule, base_url: str | None = None) -> bytes:
    return EXPORT.render(schedule, now=NOW, base_url=base_url)


def test_declares_name_extension_and_media_type() -> None:
    assert (EXPORT.name, EXPORT.extension, EXPORT.media_type) == ("frab-xml", "xml", "application/xml; charset=utf-8")


def test_seed_export_validates_and_holds_every_session(
    seed_loaded: Loaded, frab_xsd: Callable[[bytes], list[str]]
) -> None:
    body = render(seed_loaded.schedule, "https://cal.example.org")
    batch = READER.read([Document("seed.xml", body.decode())], None)

    assert frab_xsd(body) == []
    assert sorted((s.title, s.start, s.end) for s in batch.sessions) == sorted(
        (s.title, s.start, s.end) for s in seed_loaded.schedule.sessions
    )
    assert batch.zone == "Europe/Paris"


def test_edge_cases_validate_and_read_back(frab_xsd: Callable[[bytes], list[str]]) -> None:
    body = render(edge_schedule())
    batch = READER.read([Document("edge.xml", body.decode())], None)
    by_title = {s.title: s for s in batch.sessions}

    assert frab_xsd(body) == []
    # Cancelled sessions are left out; a control character XML cannot carry is dropped.
    assert sorted(by_title) == ["Hackathon (bell )", "Night owls", "Opening & <welcome>"]
    assert by_title["Hackathon (bell )"].end - by_title["Hackathon (bell )"].start == timedelta(hours=26)
    assert b"<duration>1:02:00</duration>" in body
    assert by_title["Hackathon (bell )"].room == "Edge Con"  # no room: the conference stands in
    assert [p.name for p in by_title["Opening & <welcome>"].speakers] == ["Ada Lovelace"]
    assert by_title["Opening & <welcome>"].start == T0


def test_an_event_after_midnight_stays_on_the_previous_programme_day() -> None:
    schedule = edge_schedule()
    night = dataclasses.replace(schedule.conference, day_change=time(4))
    body = render(dataclasses.replace(schedule, conference=night)).decode()

    # 02:30 Brussels on 2 February belongs to the programme of 1 February (day change 04:00).
    day_one = body.split('<day index="2"')[0]
    assert ("Night owls" in day_one, body.count("<day "), '<day index="1" date="2025-02-01"' in body) == (True, 1, True)


def test_without_a_day_change_an_event_after_midnight_is_on_its_own_date() -> None:
    body = render(edge_schedule()).decode()

    day_two = body.split('<day index="2"')[1]
    assert ("Night owls" in day_two, body.count("<day ")) == (True, 2)


def test_identical_content_gives_identical_bytes() -> None:
    schedule = edge_schedule()
    shuffled = dataclasses.replace(schedule, sessions=tuple(reversed(schedule.sessions)))

    assert render(schedule) == render(shuffled)


def test_ids_and_guids_do_not_move_when_a_session_is_added() -> None:
    schedule = edge_schedule()
    fewer = dataclasses.replace(schedule, sessions=schedule.sessions[1:])

    def ids(body: bytes) -> dict[str, tuple[str, str]]:
        batch = READER.read([Document("x.xml", body.decode())], None)
        events = body.decode().split("<event ")[1:]
        return {s.title: (s.source_id or "", e.split('"')[1]) for s, e in zip(batch.sessions, events, strict=True)}

    before, after = ids(render(fewer)), ids(render(schedule))

    assert {t: after[t] for t in before} == before
