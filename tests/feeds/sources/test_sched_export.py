"""Sched's session exports: the API JSON and the session list CSV."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from feeds.errors import TimeZoneError
from feeds.pipeline import load_schedule
from feeds.sources.documents import Document
from feeds.sources.sched_csv import READER as CSV
from feeds.sources.sched_json import READER as JSON

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sched_export"
EXPORT = FIXTURES / "export.json"


def document(path: Path) -> Document:
    return Document(str(path), path.read_text(encoding="utf-8"))


def test_json_rows_become_records_and_inactive_or_unscheduled_ones_do_not() -> None:
    batch = JSON.read([document(EXPORT)], "America/Los_Angeles")

    first, coffee = batch.sessions
    assert (first.title, first.start, first.end, first.zone) == (
        "Schemas & Types - Ada Lovelace, Engines",
        datetime(2024, 9, 10, 9),
        datetime(2024, 9, 10, 9, 30),
        None,
    )
    assert (first.source_id, first.room, first.track, first.level, first.line) == (
        "aaaa1111",
        "Main Hall",
        "Keynote Sessions",
        "Any",
        3,
    )
    assert first.description == "First line\nsecond line"
    assert [(p.name, p.affiliation) for p in first.speakers] == [("Ada Lovelace", "Engines")]
    assert (coffee.title, coffee.source_id) == ("Coffee", "103")
    assert [str(w) for w in batch.warnings] == [
        f"{EXPORT}:31: Unscheduled: no readable event_start (None); skipped",
        f"{EXPORT}: 1 inactive sessions (active = N) left out",
    ]


def test_json_times_are_checked_against_start_time_ts() -> None:
    with pytest.raises(TimeZoneError) as caught:
        load_schedule([str(EXPORT)], "Europe/Amsterdam")

    assert str(caught.value) == (
        f"{EXPORT}:3: Schemas & Types - Ada Lovelace, Engines: event_start 2024-09-10 09:00 in Europe/Amsterdam "
        "is 2024-09-10 07:00 UTC, but start_time_ts says 2024-09-10 16:00 UTC: the conference is not in "
        "Europe/Amsterdam; check --tz"
    )


def test_json_states_no_zone_so_tz_is_needed() -> None:
    with pytest.raises(TimeZoneError, match="no source states one; pass --tz ZONE"):
        load_schedule([str(EXPORT)])


def test_json_is_detected_and_resolved_in_the_conference_zone() -> None:
    loaded = load_schedule([str(EXPORT)], "America/Los_Angeles")

    assert loaded.formats == ("sched-json",)
    assert [s.start.isoformat() for s in loaded.schedule.sessions] == [
        "2024-09-10T16:00:00+00:00",
        "2024-09-10T17:30:00+00:00",
    ]


def test_csv_reads_the_same_fields_with_entities_and_speaker_list() -> None:
    path = FIXTURES / "sessions.csv"

    loaded = load_schedule([str(path)], "America/Detroit")

    (session,) = loaded.schedule.sessions
    assert loaded.formats == ("sched-csv",)
    assert (session.title, session.start.isoformat(), session.source_id, session.room and session.room.name) == (
        "Cross Stitch 201",
        "2019-05-05T16:00:00+00:00",
        "c5a1",
        "Room A",
    )
    assert session.description == "Bring a\nneedle & thread"
    assert [p.name for p in session.speakers] == ['Andrew M. "Fish" Popowich', "Becky Hill"]
    assert CSV.recognises(document(path)) and not JSON.recognises(document(path))
