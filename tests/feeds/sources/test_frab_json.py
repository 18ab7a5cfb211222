"""The frab/c3voc/pretalx schedule.json reader on CCCamp 2019, rC3 2020, democon and fixtures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feeds.demo import DEMO_DIR
from feeds.errors import SourceError
from feeds.sources.documents import Document, read_path
from feeds.sources.frab_json import READER
from feeds.sources.records import SourceBatch


def read(path: Path) -> SourceBatch:
    return READER.read([read_path(path)], None)


def test_recognises_the_three_json_schedules_and_not_their_json_schema(shared_data: Path) -> None:
    recognised = sorted(p.name for p in shared_data.iterdir() if READER.recognises(read_path(p)))
    seeds = [p for p in DEMO_DIR.iterdir() if READER.recognises(read_path(p))]

    assert recognised == [
        "frab_camp2019_schedule.json",
        "pretalx_democon_schedule.json",
        "pretalx_rc3_2020_schedule.json",
    ]
    assert seeds == []


def test_recognises_content_not_file_name() -> None:
    doc = Document("export.txt", '{"schedule": {"version": "1", "conference": {"days": []}}}')
    sched = Document("schedule.json", '[{"event_key": "abc", "name": "Talk"}]')

    assert (READER.recognises(doc), READER.recognises(sched)) == (True, False)


def test_frab_camp_2019(shared_data: Path) -> None:
    batch = read(shared_data / "frab_camp2019_schedule.json")
    (opening,) = [s for s in batch.sessions if s.source_id == "a0a0fcfe-b7fb-46e3-84b6-97a5406016b4"]

    assert (len(batch.sessions), batch.conference, batch.zone, batch.warnings, batch.defects) == (
        79,
        "Chaos Communication Camp 2019",
        "Europe/Berlin",
        (),
        (),
    )
    assert (opening.title, opening.start, opening.end) == (
        "Opening Ceremony",
        datetime(2019, 8, 21, 9, 0, tzinfo=UTC),
        datetime(2019, 8, 21, 9, 30, tzinfo=UTC),
    )
    assert (opening.room, opening.track, opening.kind) == ("Curie", "CCC", "lecture")
    assert [p.name for p in opening.speakers] == ["jinxx", "smtw"]
    assert opening.url == "https://fahrplan.events.ccc.de/camp/2019/Fahrplan/events/10386.html"


def test_pretalx_rc3_states_offsets_but_no_zone(shared_data: Path) -> None:
    batch = read(shared_data / "pretalx_rc3_2020_schedule.json")
    first = batch.sessions[0]

    assert (len(batch.sessions), batch.zone, len({s.source_id for s in batch.sessions})) == (48, None, 48)
    assert first.start == datetime(2020, 12, 27, 10, 30, tzinfo=UTC)
    assert [(p.name, p.bio) for p in first.speakers] == [("Chris Fiege", None), ("Kasa", None)]
    # pretalx's CRLF inside JSON strings becomes LF like every other text.
    assert "\r" not in first.description


def test_democon_says_utc_but_its_dates_win(shared_data: Path) -> None:
    batch = read(shared_data / "pretalx_democon_schedule.json")
    first = batch.sessions[0]

    assert (len(batch.sessions), batch.zone) == (36, "Etc/GMT-1")
    assert first.start == datetime(2020, 12, 14, 8, 0, tzinfo=UTC)  # 09:00+01:00, not 09:00 UTC
    assert [w.message for w in batch.warnings] == [
        "time_zone_name says UTC but event dates are +01:00 (e.g. 2020-12-14T09:00:00+01:00); "
        "the dates' offsets are used, conference zone Etc/GMT-1"
    ]


def test_without_date_the_day_start_decides_the_day_and_bad_events_are_defects(fixtures: Path) -> None:
    batch = read(fixtures / "frab" / "no_date.json")
    (owls,) = batch.sessions

    assert (owls.start, owls.end - owls.start, owls.zone) == (
        datetime(2019, 8, 22, 2, 0),
        timedelta(minutes=30),
        "Europe/Berlin",
    )
    assert (owls.source_id, owls.kind, owls.url) == ("ABC123", "meeting", "https://example.org/owls")
    assert [d.message for d in batch.defects] == [
        "days[0].rooms[\"Curie\"][1]: duration 'banana' is not HH:MM or D:HH:MM"
    ]


def test_truncated_json_names_file_and_line(fixtures: Path) -> None:
    path = fixtures / "frab" / "truncated.json"

    with pytest.raises(SourceError) as caught:
        read(path)

    assert str(caught.value).startswith(f"{path}:")
    assert str(caught.value).splitlines() == [str(caught.value)]
    assert "is not valid JSON" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"schedule": {"conference": {"title": "x"}}}', "doc.json: schedule.conference.days is not a list"),
        ('{"schedule": {"conference": {"days": []}}}', "doc.json: holds no event in any day's rooms"),
        ('{"schedule": []}', "doc.json: has no schedule.conference object"),
        ("[" * 100_000, "doc.json: is not a schedule: JSON nested too deeply"),
    ],
)
def test_not_a_schedule_is_one_line(text: str, expected: str) -> None:
    with pytest.raises(SourceError) as caught:
        READER.read([Document("doc.json", text)], None)

    assert str(caught.value) == expected
