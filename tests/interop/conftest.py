"""Seven independent calendar clients, each reduced to {UID: (UTC start, UTC end)}.

icalendar and `ical` know IANA zones themselves; vobject, Mozilla's ical.js (Thunderbird's parser),
node-ical and ts-ics (the last three run through node) and khal (reading through vdirsyncer, as a
subscriber does) compute offsets from the VTIMEZONE we ship, or are fooled by it. Agreement between
them is what shows the VTIMEZONE and the TZID/UTC choices are read alike.

The JavaScript parsers come from npm (`npm ci --prefix tests/interop`), khal and vdirsyncer from
tests/install-system-deps.sh. Without them the tests fail under CI=true and skip locally, saying so.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import vobject
from ical.calendar_stream import IcsCalendarStream
from icalendar import Calendar

from tests.helpers import khal
from tests.interop.clients import (
    JS_PARSERS,
    ReadAll,
    Readings,
    _run_icaljs,
    read_seven,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "parse_ics.mjs"

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
        return read_seven(calendars, tmp_path_factory.mktemp("read"))

    return read


@pytest.fixture(scope="session")
def read_fields(icaljs_ready: None) -> Callable[[bytes, Path], dict[str, Fields]]:
    """`fields_of`, for test modules (which should not import conftest by name)."""
    return fields_of


@pytest.fixture
def read_texts(icaljs_ready: None) -> Callable[[bytes, Path], dict[str, Texts]]:
    """`texts_of`, for test modules (which should not import conftest by name)."""
    return texts_of
