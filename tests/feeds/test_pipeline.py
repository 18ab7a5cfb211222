"""Detection by content, a forced format, and the zones rule of the neutral merge."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from feeds.demo import DEMO_DIR
from feeds.errors import SourceError, TimeZoneError
from feeds.merge import merge
from feeds.pipeline import load_schedule
from feeds.sources.formats import readers
from feeds.sources.records import SessionRecord, SourceBatch


def record(start: datetime, end: datetime, *, zone: str | None = None) -> SessionRecord:
    return SessionRecord(source="s.txt", line=12, title="Talk", start=start, end=end, zone=zone)


def test_seed_pages_are_detected_as_sched_pages() -> None:
    loaded = load_schedule([str(DEMO_DIR)], "Europe/Paris")

    assert (loaded.formats, len(loaded.schedule.sessions)) == (("sched-page",), 28)


def test_unrecognised_document_names_itself_and_every_format_tried(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("Shopping list\n- eggs\n", encoding="utf-8")

    with pytest.raises(SourceError) as caught:
        load_schedule([str(notes)], "Europe/Paris")

    labels = ", ".join(r.label for r in readers())
    assert str(caught.value) == f"{notes}: is not a schedule in a format confcal reads (tried: {labels})"


def test_forced_format_skips_detection_and_an_unknown_one_is_named(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as caught:
        load_schedule([str(DEMO_DIR)], "Europe/Paris", format="pdf")

    forced = load_schedule([str(DEMO_DIR)], "Europe/Paris", format="sched-page")

    assert str(caught.value).startswith("unknown format 'pdf'; known formats: ")
    assert len(forced.schedule.sessions) == 28


def test_stated_zone_is_used_without_tz() -> None:
    batch = SourceBatch("x", (record(datetime(2026, 4, 7, 11), datetime(2026, 4, 7, 12)),), zone="Europe/Paris")

    (session,) = merge([batch]).schedule.sessions

    assert session.start.isoformat() == "2026-04-07T09:00:00+00:00"


def test_tz_contradicting_a_stated_zone_stops() -> None:
    batch = SourceBatch("x", (record(datetime(2026, 4, 7, 11), datetime(2026, 4, 7, 12)),), zone="Europe/Paris")

    with pytest.raises(TimeZoneError) as caught:
        merge([batch], "America/Chicago")

    assert (
        str(caught.value)
        == "s.txt states time zone Europe/Paris, but --tz says America/Chicago; drop --tz or fix the source"
    )


def test_no_zone_anywhere_asks_for_tz() -> None:
    batch = SourceBatch("x", (record(datetime(2026, 4, 7, 11), datetime(2026, 4, 7, 12)),))

    with pytest.raises(TimeZoneError, match="pass --tz ZONE"):
        merge([batch])


@pytest.mark.parametrize(
    ("wall", "what"),
    [
        (datetime(2026, 3, 29, 2, 30), "does not exist in Europe/Paris"),
        (datetime(2026, 10, 25, 2, 30), "happens twice in Europe/Paris"),
    ],
)
def test_wall_time_in_the_gap_or_the_fold_is_an_error_naming_file_and_line(wall: datetime, what: str) -> None:
    batch = SourceBatch("x", (record(wall, wall.replace(hour=4)),))

    with pytest.raises(TimeZoneError) as caught:
        merge([batch], "Europe/Paris")

    assert str(caught.value).startswith("s.txt:12: Talk: ")
    assert what in str(caught.value)


def test_records_with_their_own_zone_and_exact_instants_mix() -> None:
    batch = SourceBatch(
        "x",
        (
            record(datetime(2026, 4, 7, 11), datetime(2026, 4, 7, 12), zone="America/Chicago"),
            record(
                datetime.fromisoformat("2026-04-07T09:00:00+00:00"), datetime.fromisoformat("2026-04-07T10:00:00+00:00")
            ),
        ),
    )

    sessions = merge([batch], "Europe/Paris").schedule.sessions

    assert [s.start.isoformat() for s in sessions] == ["2026-04-07T09:00:00+00:00", "2026-04-07T16:00:00+00:00"]
    assert len({s.id for s in sessions}) == 2


def test_a_page_whose_only_session_lost_its_time_names_the_file_and_the_defect(fixtures: Path) -> None:
    page = fixtures / "damaged" / "only_unreadable_time.txt"

    with pytest.raises(SourceError) as caught:
        load_schedule([str(page)], "Europe/Paris")

    assert str(caught.value).startswith(f"no session with a title and a time found in {page} ({page}:8: ")
