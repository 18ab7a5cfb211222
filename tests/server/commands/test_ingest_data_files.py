"""Done when for the Sched export and iCalendar formats: each real file in ../shared/data
ingests with its format detected, and the served `/api/sessions` holds exactly the sessions an
independent reading of the raw file finds (title, UTC start and end), inactive and cancelled ones
excluded. The independent readings use json/csv from the standard library and vobject for .ics,
never confcal's readers."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import anyio
import httpx
import pytest
from vobject.base import getLogicalLines, textLineToContentLine

from feeds.pipeline import load_schedule
from server.cli import main
from server.store import Store
from server.web.app import create_app

Expected = Counter[tuple[str, datetime, datetime]]


def sched_json(path: Path, zone: str) -> Expected:
    found: Expected = Counter()
    for item in json.loads(path.read_text(encoding="utf-8")):
        if item.get("active") == "N":
            continue
        start = datetime.fromtimestamp(item["start_time_ts"], UTC)
        wall_start = datetime.strptime(item["event_start"], "%Y-%m-%d %H:%M")
        wall_end = datetime.strptime(item["event_end"], "%Y-%m-%d %H:%M")
        end = wall_end.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
        assert wall_start.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC) == start
        found[(html.unescape(item["name"]).strip(), start, end)] += 1
    return found


def sched_csv(path: Path, zone: str) -> Expected:
    found: Expected = Counter()
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["active"] == "N":
                continue
            start, end = (
                datetime.strptime(row[key], "%Y-%m-%d %H:%M:%S").replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
                for key in ("event_start", "event_end")
            )
            found[(html.unescape(row["name"]).strip(), start, end)] += 1
    return found


def ics(path: Path, zone: str) -> Expected:
    """vobject's content-line layer unfolds and splits the lines (RFC 5545 §3.1); its component layer
    is not used: it keeps only the part of a SUMMARY before an unescaped comma (MOCA's titles have
    them) and stops at MOCA's non-standard "VTIMEZONE: Europe/Rome" line. Both files give every
    time in UTC (RFC 5545 §3.3.5, form #2), which this reading insists on."""
    found: Expected = Counter()
    event: dict[str, str] | None = None
    for raw, number in getLogicalLines(io.StringIO(path.read_text(encoding="utf-8"))):
        line = textLineToContentLine(raw, number)
        name, value = line.name.upper(), str(line.value)
        if (name, value.upper()) == ("BEGIN", "VEVENT"):
            event = {}
        elif (name, value.upper()) == ("END", "VEVENT") and event is not None:
            if event.get("STATUS", "").strip().upper() != "CANCELLED":
                start, end = (
                    datetime.strptime(event[key].strip(), "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
                    for key in ("DTSTART", "DTEND")
                )
                found[(_unescape(event["SUMMARY"]).strip(), start, end)] += 1
            event = None
        elif event is not None:
            event[name] = value
    return found


def _unescape(value: str) -> str:
    # RFC 5545 §3.3.11: \\ \; \, \n \N
    return re.sub(r"\\([\\;,nN])", lambda m: "\n" if m.group(1) in "nN" else m.group(1), value)


FILES: dict[str, tuple[str, str | None, Callable[[Path, str], Expected], int]] = {
    # file: (format detected, --tz, independent reading, sessions)
    "sched_graphqlconf2024_session_export_excerpt.json": ("sched-json", "America/Los_Angeles", sched_json, 9),
    "sched_graphqlconf2025_session_export_excerpt.json": ("sched-json", "Europe/Amsterdam", sched_json, 6),
    "penguicon_2019_sched_session_list.csv": ("sched-csv", "America/Detroit", sched_csv, 355),
    "jococruise_2020_sched_export.ics": ("ics", None, ics, 464),
    "moca_2024_messy.ics": ("ics", None, ics, 88),
}


def served_sessions(db: str) -> Expected:
    async def get() -> httpx.Response:
        transport = httpx.ASGITransport(app=create_app(store))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            return await client.get("/api/sessions")

    with Store.open(db) as store:
        reply = anyio.run(get)
    assert reply.status_code == 200
    found: Expected = Counter()
    for entry in reply.json()["sessions"]:
        if entry["status"] == "cancelled":
            continue
        start, end = (datetime.fromisoformat(entry[key]).astimezone(UTC) for key in ("start", "end"))
        found[(entry["title"], start, end)] += 1
    return found


@pytest.mark.parametrize("name", sorted(FILES))
def test_file_ingests_detected_and_serves_exactly_its_sessions(
    name: str, shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fmt, zone, independent, count = FILES[name]
    db = str(tmp_path / "store.sqlite")
    tz = ["--tz", zone] if zone else []

    code = main(["ingest", "--db", db, *tz, str(shared_data / name)])

    out = capsys.readouterr()
    expected = independent(shared_data / name, zone or "UTC")
    assert (code, out.err) == (0, "")
    assert out.out.splitlines()[1].startswith(f"version 1: {count} added,")
    assert sum(expected.values()) == count
    assert served_sessions(db) == expected
    assert load_schedule([str(shared_data / name)], zone).formats == (fmt,)


def test_seed_pages_still_give_28_sessions(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "store.sqlite")

    code = main(["ingest", "--db", db, "--tz", "Europe/Paris", str(shared_data.parent / "seeds")])

    assert code == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("version 1: 28 added,")
    assert sum(served_sessions(db).values()) == 28
