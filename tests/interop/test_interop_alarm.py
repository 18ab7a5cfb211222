"""`?alarm=N`: every event of the feed carries one DISPLAY VALARM N minutes before
its start, with the session's title, read alike by all four parsers."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import vobject
from ical.calendar_stream import IcsCalendarStream
from icalendar import Calendar

from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.ical import render_calendar
from feeds.ical.text import clean_text
from feeds.pipeline import load_schedule
from feeds.query import FeedQuery, select
from tests.helpers.seed_clock import NOW

HERE = Path(__file__).resolve().parent
Alarms = dict[str, list[tuple[str, timedelta | datetime, str]]]  # UID -> [(ACTION, TRIGGER, DESCRIPTION)]


def by_icalendar(data: bytes) -> Alarms:
    return {
        str(e["UID"]): [(str(a["ACTION"]), a.decoded("TRIGGER"), str(a["DESCRIPTION"])) for a in e.walk("VALARM")]
        for e in Calendar.from_ical(data).walk("VEVENT")
    }


def by_ical(data: bytes) -> Alarms:
    cal = IcsCalendarStream.calendar_from_ics(data.decode("utf-8"))
    return {str(e.uid): [(str(a.action), a.trigger, str(a.description)) for a in e.alarm] for e in cal.events}


def by_vobject(data: bytes) -> Alarms:
    cal = vobject.readOne(data.decode("utf-8"))
    return {
        e.uid.value: [(a.action.value, a.trigger.value, a.description.value) for a in getattr(e, "valarm_list", [])]
        for e in cal.vevent_list
    }


def by_icaljs(path: Path) -> Alarms:
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run(
        [node, str(HERE / "parse_ics.mjs"), str(path)],
        cwd=HERE, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = json.loads(done.stdout)[str(path)]
    return {
        e["uid"]: [
            (a["action"], -timedelta(minutes=int(a["trigger"].removeprefix("-PT").removesuffix("M")))
             if a["trigger"].startswith("-PT") and a["trigger"].endswith("M") else a["trigger"],
             a["description"])
            for a in e["alarms"]
        ]
        for e in events
    }  # fmt: skip


def test_alarm_10_is_read_alike_by_four_parsers(icaljs_ready: None, tmp_path: Path) -> None:
    schedule = load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule
    sessions = select(schedule, FeedQuery(), now=NOW)
    # In UTC, so no VTIMEZONE: vobject keeps the first definition of a TZID for the whole
    # process, and a Europe/Paris one from here would be read by test_interop_edges' fold cases.
    conference = dataclasses.replace(schedule.conference, timezone="UTC")
    data = render_calendar(conference, sessions, title="All", alarm=10)
    assert b"BEGIN:VTIMEZONE" not in data
    path = tmp_path / "alarm.ics"
    path.write_bytes(data)
    expected = {
        f"{s.id}@{schedule.conference.slug}.confcal": [("DISPLAY", timedelta(minutes=-10), clean_text(s.title))]
        for s in sessions
    }

    readings = {
        "icalendar": by_icalendar(data),
        "ical": by_ical(data),
        "vobject": by_vobject(data),
        "ical.js": by_icaljs(path),
    }

    assert len(expected) == 28
    assert readings == {name: expected for name in readings}
