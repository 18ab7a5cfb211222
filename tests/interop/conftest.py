"""Seven independent calendar clients, each reduced to {UID: (UTC start, UTC end)}.

icalendar and `ical` know IANA zones themselves; vobject, Mozilla's ical.js (Thunderbird's parser),
node-ical and ts-ics (the last three run through node) and khal (reading through vdirsyncer, as a
subscriber does) compute offsets from the VTIMEZONE we ship, or are fooled by it. Agreement between
them is what shows the VTIMEZONE and the TZID/UTC choices are read alike.

The JavaScript parsers come from npm (`npm ci --prefix tests/interop`), khal and vdirsyncer from
tests/install-system-deps.sh. Without them the tests fail under CI=true and skip locally, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import vobject
from ical.calendar_stream import IcsCalendarStream
from icalendar import Calendar

from tests.helpers import khal
from tests.helpers.source_server import page_server
from tests.interop.clients import JS_PARSERS

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "parse_ics.mjs"

Instants = tuple[datetime, datetime]
Readings = dict[str, Instants]  # UID -> (start, end), both in UTC
ReadAll = Callable[[dict[str, bytes]], dict[str, dict[str, Readings]]]


def _utc(value: object) -> datetime:
    assert isinstance(value, datetime), f"expected a date-time, got {value!r}"
    assert value.utcoffset() is not None, f"floating time {value!r}: the zone was not resolved"
    return value.astimezone(UTC)


def read_icalendar(data: bytes) -> Readings:
    cal = Calendar.from_ical(data)
    return {str(e["UID"]): (_utc(e.decoded("DTSTART")), _utc(e.decoded("DTEND"))) for e in cal.walk("VEVENT")}


def read_ical(data: bytes) -> Readings:
    # The `ical` package is strict unless its compat mode is enabled, which we do not do.
    cal = IcsCalendarStream.calendar_from_ics(data.decode("utf-8"))
    return {str(e.uid): (_utc(e.dtstart), _utc(e.dtend)) for e in cal.events}


def read_vobject(data: bytes) -> Readings:
    cal = vobject.readOne(data.decode("utf-8"))
    events = getattr(cal, "vevent_list", [])
    return {e.uid.value: (_utc(e.dtstart.value), _utc(e.dtend.value)) for e in events}


Texts = dict[str, tuple[str, str]]  # UID -> (SUMMARY, DESCRIPTION), unescaped


def texts_of(data: bytes, path: Path) -> dict[str, Texts]:
    """SUMMARY and DESCRIPTION as each parser reads them, {parser: {UID: texts}}; `data` is
    written to `path` for ical.js."""
    path.write_bytes(data)
    cal = Calendar.from_ical(data)
    strict = IcsCalendarStream.calendar_from_ics(data.decode("utf-8"))
    vcal = vobject.readOne(data.decode("utf-8"))
    return {
        "icalendar": {str(e["UID"]): (str(e["SUMMARY"]), str(e["DESCRIPTION"])) for e in cal.walk("VEVENT")},
        "ical": {str(e.uid): (str(e.summary), str(e.description)) for e in strict.events},
        "vobject": {e.uid.value: (e.summary.value, e.description.value) for e in vcal.vevent_list},
        "ical.js": {e["uid"]: (e["summary"], e["description"]) for e in _run_icaljs([path])[str(path)]},
    }


Fields = dict[str, tuple[str, str, str]]  # UID -> (SUMMARY, DESCRIPTION, LOCATION), unescaped


def fields_of(data: bytes, path: Path) -> dict[str, Fields]:
    """SUMMARY, DESCRIPTION and LOCATION as each parser reads them, {parser: {UID: fields}};
    `data` is written to `path` for ical.js. Events without a property read it as ""."""
    path.write_bytes(data)
    cal = Calendar.from_ical(data)
    strict = IcsCalendarStream.calendar_from_ics(data.decode("utf-8"))
    vcal = vobject.readOne(data.decode("utf-8"))

    def vtext(event: vobject.base.Component, name: str) -> str:
        return str(getattr(event, name).value) if hasattr(event, name) else ""

    return {
        "icalendar": {
            str(e["UID"]): tuple(str(e.get(n, "")) for n in ("SUMMARY", "DESCRIPTION", "LOCATION"))  # type: ignore[misc]
            for e in cal.walk("VEVENT")
        },
        "ical": {str(e.uid): (e.summary or "", e.description or "", e.location or "") for e in strict.events},
        "vobject": {
            e.uid.value: (vtext(e, "summary"), vtext(e, "description"), vtext(e, "location")) for e in vcal.vevent_list
        },
        "ical.js": {
            e["uid"]: (e["summary"] or "", e["description"] or "", e["location"] or "")
            for e in _run_icaljs([path])[str(path)]
        },
    }


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


def read_khal(calendars: dict[str, bytes], work: Path) -> dict[str, Readings]:
    """khal's reading of each calendar, served on loopback and synced by vdirsyncer in one run."""
    with page_server() as server:
        urls = {name: server.put(f"/{n}.ics", data) for n, (name, data) in enumerate(calendars.items())}
        found = khal.read_subscriptions(urls, work)
    readings: dict[str, Readings] = {}
    for name, events in found.items():
        for event in events:
            assert isinstance(event.start, datetime), f"{name}: {event.uid} read as an all-day event"
        readings[name] = {e.uid: (e.start, e.end) for e in events}  # type: ignore[misc]
    return readings


@pytest.fixture(scope="session")
def icaljs_ready() -> None:
    """ical.js must be installed; missing it is a failure in CI and a visible skip locally."""
    missing = []
    if shutil.which("node") is None:
        missing.append("node is not on PATH")
    for package in JS_PARSERS:
        if not (HERE / "node_modules" / package / "package.json").is_file():
            missing.append(f"{package} is not installed (run: npm ci --prefix tests/interop)")
    if missing:
        reason = "; ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(f"parser interop needs the JavaScript parsers: {reason}")
        pytest.skip(f"parser interop needs the JavaScript parsers: {reason}")
    khal.tools_ready()


@pytest.fixture(scope="module")
def read_all(icaljs_ready: None, tmp_path_factory: pytest.TempPathFactory) -> ReadAll:
    """Read named calendars with all seven clients: {name: {client: readings}}. Each JavaScript
    parser reads every file in one node process; khal reads them all in one vdirsyncer sync."""

    def read(calendars: dict[str, bytes]) -> dict[str, dict[str, Readings]]:
        folder = tmp_path_factory.mktemp("ics")
        paths = {name: folder / f"{n:04d}.ics" for n, name in enumerate(calendars)}
        for name, data in calendars.items():
            paths[name].write_bytes(data)
        by_js = {parser: read_icaljs(list(paths.values()), parser) for parser in JS_PARSERS}
        by_khal = read_khal(calendars, tmp_path_factory.mktemp("khal"))
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

    return read


@pytest.fixture(scope="session")
def read_fields(icaljs_ready: None) -> Callable[[bytes, Path], dict[str, Fields]]:
    """`fields_of`, for test modules (which should not import conftest by name)."""
    return fields_of


@pytest.fixture
def read_texts(icaljs_ready: None) -> Callable[[bytes, Path], dict[str, Texts]]:
    """`texts_of`, for test modules (which should not import conftest by name)."""
    return texts_of
