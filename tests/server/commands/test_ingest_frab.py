"""Done when for the frab family: each real schedule.xml / schedule.json ingests with its
format detected, and `/api/sessions` holds exactly the sessions an independent reading of the raw
file finds (xml.etree / json here, not confcal's readers): title, UTC start and UTC end."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.cli import main
from tests.helpers.app_http import api_sessions

Key = tuple[str, datetime, datetime]

# file, --tz (only for the file that states no zone), sessions in the file
CASES = [
    ("fosdem_2025_schedule.xml", None, 943),
    ("ccc_38c3_2024_schedule.xml", None, 1007),
    ("frab_camp2019_schedule.json", None, 79),
    ("pretalx_rc3_2020_schedule.json", "Europe/Berlin", 48),  # offsets only, no time_zone_name
    ("pretalx_democon_schedule.json", None, 36),  # says UTC, dates are +01:00: the dates win
]


def _duration(text: str) -> timedelta:
    parts = [int(p) for p in text.split(":")]
    days, hours, minutes = ([0] + parts)[-3:]
    return timedelta(days=days, hours=hours, minutes=minutes)


def _key(title: str, date: str, duration: str) -> Key:
    start = datetime.fromisoformat(date).astimezone(UTC)
    return (" ".join(title.split()), start, start + _duration(duration))


def raw_sessions(path: Path) -> Counter[Key]:
    if path.suffix == ".xml":
        root = ET.parse(path).getroot()
        return Counter(
            _key(e.findtext("title") or "", e.findtext("date") or "", e.findtext("duration") or "")
            for e in root.iter("event")
        )
    days = json.loads(path.read_text(encoding="utf-8"))["schedule"]["conference"]["days"]
    return Counter(
        _key(e["title"], e["date"], e["duration"]) for day in days for events in day["rooms"].values() for e in events
    )


def served_sessions(db: str) -> Counter[Key]:
    return Counter(
        (
            s["title"],
            datetime.fromisoformat(s["start"]).astimezone(UTC),
            datetime.fromisoformat(s["end"]).astimezone(UTC),
        )
        for s in api_sessions(db)
        if s["status"] == "confirmed"
    )


@pytest.mark.parametrize(("name", "tz", "count"), CASES)
def test_every_session_of_the_raw_file_is_served_and_nothing_else(
    shared_data: Path, tmp_path: Path, name: str, tz: str | None, count: int, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "store.sqlite")
    path = shared_data / name
    expected = raw_sessions(path)

    code = main(["ingest", "--db", db, *(["--tz", tz] if tz else []), str(path)])

    assert code == 0, capsys.readouterr().err
    assert served_sessions(db) == expected
    assert sum(expected.values()) == count
