"""The seven calendar clients the agreement tests read every feed with, each reduced to
{UID: (UTC start, UTC end)}: icalendar, `ical`, vobject (in this process), Mozilla's ical.js,
node-ical and ts-ics (through node, parse_ics.mjs) and khal (through vdirsyncer, as a subscriber).
Kept out of conftest.py so that the agreement table script (agreement_table.py) can use them."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from pathlib import Path

import vobject
from ical.calendar_stream import IcsCalendarStream
from icalendar import Calendar

from tests.helpers import khal
from tests.helpers.source_server import page_server
from tests.helpers.vevents import vevents

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "parse_ics.mjs"
CLIENTS = ("icalendar", "ical", "vobject", "ical.js", "node-ical", "ts-ics", "khal")
JS_PARSERS = ("ical.js", "node-ical", "ts-ics")  # run through node by parse_ics.mjs

Instants = tuple[datetime, datetime]
Readings = dict[str, Instants]  # UID -> (start, end), both in UTC
ReadAll = Callable[[dict[str, bytes]], dict[str, dict[str, Readings]]]


def _utc(value: object) -> datetime:
    assert isinstance(value, datetime), f"expected a date-time, got {value!r}"
    assert value.utcoffset() is not None, f"floating time {value!r}: the zone was not resolved"
    return value.astimezone(UTC)


def read_icalendar(data: bytes) -> Readings:
    cal = Calendar.from_ical(data)
    return {str(e["UID"]): (_utc(e.decoded("DTSTART")), _utc(e.end)) for e in vevents(cal)}


def read_ical(data: bytes) -> Readings:
    # The `ical` package is strict unless its compat mode is enabled, which we do not do.
    cal = IcsCalendarStream.calendar_from_ics(data.decode("utf-8"))
    return {str(e.uid): (_utc(e.dtstart), _utc(e.end)) for e in cal.events}


def read_vobject(data: bytes) -> Readings:
    cal = vobject.readOne(data.decode("utf-8"))
    events = getattr(cal, "vevent_list", [])
    found: Readings = {}
    for e in events:
        start = e.dtstart.value
        # A zero-length session has DURATION:PT0S, not a DTEND (which must be later than DTSTART).
        end = e.dtend.value if hasattr(e, "dtend") else start + e.duration.value
        found[e.uid.value] = (_utc(start), _utc(end))
    return found


def _run_icaljs(paths: list[Path], parser: str = "ical.js") -> dict[str, list[dict[str, str]]]:
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run(
        [node, str(SCRIPT), f"--parser={parser}", *map(str, paths)],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, list[dict[str, str]]] = json.loads(done.stdout)
    refused = {path: events for path, events in found.items() if isinstance(events, dict)}
    assert refused == {}, f"{parser} could not read: {refused}"
    return found


def _iso(text: str) -> datetime:
    return datetime.fromisoformat(text)


def read_icaljs(paths: list[Path], parser: str = "ical.js") -> dict[Path, Readings]:
    """All files in one node process (see parse_ics.mjs), with one of `JS_PARSERS`."""
    found = _run_icaljs(paths, parser)
    result: dict[Path, Readings] = {}
    for path in paths:
        events = found[str(path)]
        for event in events:
            assert event["zone"] not in (None, "floating"), f"{path.name}: {event['uid']} read as floating time"
        result[path] = {event["uid"]: (_iso(event["start"]), _iso(event["end"])) for event in events}
    return result


def read_khal(calendars: Mapping[str, bytes], work: Path, days: tuple[date, date] | None = None) -> dict[str, Readings]:
    """khal's reading of each calendar, served on loopback and synced by vdirsyncer in one run."""
    with page_server() as server:
        urls = {name: server.put(f"/{n}.ics", data) for n, (name, data) in enumerate(calendars.items())}
        found = khal.read_subscriptions(urls, work, days)
    readings: dict[str, Readings] = {}
    for name, events in found.items():
        for event in events:
            assert isinstance(event.start, datetime), f"{name}: {event.uid} read as an all-day event"
        readings[name] = {e.uid: (e.start, e.end) for e in events}  # type: ignore[misc]
    return readings


def read_seven(
    calendars: Mapping[str, bytes], work: Path, days: tuple[date, date] | None = None
) -> dict[str, dict[str, Readings]]:
    """Every calendar read by the seven clients: {name: {client: readings}}. Each JavaScript parser
    reads every file in one node process; khal reads them all in one vdirsyncer sync (listing
    `days` when given, as khal's listing walks its range a day at a time)."""
    folder = work / "ics"
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / f"{n:05d}.ics" for n, name in enumerate(calendars)}
    for name, data in calendars.items():
        paths[name].write_bytes(data)
    by_js = {parser: read_icaljs(list(paths.values()), parser) for parser in JS_PARSERS}
    by_khal = read_khal(calendars, work / "khal", days)
    return {
        name: {
            "icalendar": read_icalendar(data),
            "ical": read_ical(data),
            "vobject": read_vobject(data),
            **{parser: by_js[parser][paths[name]] for parser in JS_PARSERS},
            "khal": by_khal[name],
        }
        for name, data in calendars.items()
    }
