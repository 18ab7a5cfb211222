"""Plain tables (CSV, TSV, JSON rows, a JSON object holding one array of rows) read by their usual
column names, or by a mapping (`--map title=Name,...` or a TOML file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from feeds.errors import SourceError
from feeds.pipeline import load_schedule
from feeds.sources.table import parse_mapping
from server.cli import main
from server.store import Store

TABLES = Path(__file__).resolve().parents[2] / "fixtures" / "table"


def rows(path: Path, tz: str, mapping: dict[str, str] | None = None) -> list[tuple[object, ...]]:
    loaded = load_schedule([str(path)], tz, mapping=mapping)
    assert loaded.formats == ("table",)
    return [
        (s.title, s.start.isoformat(), s.end.isoformat(), s.room and s.room.name, tuple(p.name for p in s.speakers))
        for s in loaded.schedule.sessions
    ]


def test_scale_shaped_json_reads_without_a_mapping() -> None:
    loaded = load_schedule([str(TABLES / "scale_shape.json")], "America/Los_Angeles")

    walk = next(s for s in loaded.schedule.sessions if s.source_id == "walk-1")
    assert (walk.title, walk.start.isoformat(), walk.end.isoformat()) == (
        "International Women's Day Fun Walk",
        "2025-03-09T15:00:00+00:00",
        "2025-03-09T16:00:00+00:00",
    )
    assert (walk.room and walk.room.name, walk.track and walk.track.name, walk.url) == (
        "Lobby",
        "Community",
        "https://example.org/sessions/walk-1",
    )
    assert [p.name for p in walk.speakers] == ["Ada Example"]


def test_tsv_with_local_times_minutes_and_joined_presenters_reads_in_tz() -> None:
    assert rows(TABLES / "plain.tsv", "Europe/Paris") == [
        ("Opening", "2026-06-01T07:00:00+00:00", "2026-06-01T07:30:00+00:00", "Main", ("Ann Doe", "Bob Roe")),
        ("Lightning talks", "2026-06-01T07:30:00+00:00", "2026-06-01T08:15:00+00:00", "Main", ("Carla Poe", "Dan Moe")),
    ]


def test_a_json_object_holding_one_array_of_rows_is_read() -> None:
    assert rows(TABLES / "wrapped.json", "UTC") == [
        ("Only one", "2026-06-01T10:00:00+00:00", "2026-06-01T10:30:00+00:00", "R1", ())
    ]


def test_a_toml_mapping_names_the_columns_and_a_bad_row_is_a_defect_at_its_line() -> None:
    mapping = parse_mapping(str(TABLES / "mapped.toml"))

    loaded = load_schedule([str(TABLES / "mapped.csv")], "Europe/Paris", mapping=mapping)

    assert [(s.title, s.start.isoformat(), s.end.isoformat()) for s in loaded.schedule.sessions] == [
        ("Keynote", "2026-06-01T08:00:00+00:00", "2026-06-01T08:45:00+00:00")
    ]
    assert [str(d) for d in loaded.defects] == [
        f"{TABLES / 'mapped.csv'}:3: Broken: Begins At 'not a time' is not a date and time"
    ]


def test_an_inline_mapping_equals_the_toml_one() -> None:
    assert parse_mapping("title=Session Name, start=Begins At,duration=Length") == parse_mapping(
        str(TABLES / "mapped.toml")
    )


def test_a_mapping_naming_an_unknown_field_is_refused_in_one_line() -> None:
    with pytest.raises(SourceError) as caught:
        parse_mapping("titel=Name")

    assert str(caught.value) == (
        "--map: unknown field 'titel'; fields are title, start, end, duration, room, track, speakers,"
        " description, id, url"
    )


def test_without_the_mapping_the_table_is_not_recognised() -> None:
    with pytest.raises(SourceError) as caught:
        load_schedule([str(TABLES / "mapped.csv")], "Europe/Paris")

    assert str(caught.value).startswith(f"{TABLES / 'mapped.csv'}: is not a schedule in a format confcal reads")


def test_confcal_ingest_takes_map_and_stores_the_table(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")

    code = main(
        [
            "ingest",
            "--db",
            db,
            "--tz",
            "Europe/Paris",
            "--force",
            "--map",
            "title=Session Name,start=Begins At,duration=Length",
            str(TABLES / "mapped.csv"),
        ]
    )

    with Store.open(db) as store:
        live = store.live()
    titles = [s.title for s in live.sessions] if live else []
    assert (code, titles) == (0, ["Keynote"])
