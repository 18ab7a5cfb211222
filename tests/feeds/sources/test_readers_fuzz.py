"""Hostile or broken input to the export and .ics readers: a batch or a FeedsError naming the
document in one line, never another exception."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feeds.errors import FeedsError
from feeds.pipeline import load_documents
from feeds.sources import Reader
from feeds.sources.documents import Document
from feeds.sources.ics import READER as ICS
from feeds.sources.sched_csv import READER as CSV
from feeds.sources.sched_json import READER as JSON

ICS_LINES = st.sampled_from(
    [
        "BEGIN:VEVENT",
        "END:VEVENT",
        "SUMMARY:Talk",
        "SUMMARY:",
        "UID:x",
        "STATUS:CANCELLED",
        "DTSTART:20260407T110000Z",
        "DTSTART;TZID=Europe/Paris:20260329T023000",
        "DTSTART;TZID=Nowhere:20260407T110000",
        "DTSTART;VALUE=DATE:20260407",
        "DTSTART:2026",
        "DTEND:20260407T100000Z",
        "DURATION:PT1H",
        "DURATION:P",
        "RRULE:FREQ=DAILY",
        "X-WR-TIMEZONE:Europe/Paris",
        "X-WR-TIMEZONE:Mars/Base",
        "VTIMEZONE: Europe/Rome",
        "BEGIN:VTIMEZONE",
        "TZID:Custom",
        "END:VTIMEZONE",
        "CATEGORIES:A,B",
        "LOCATION:Room\\, 1",
        " folded",
    ]
)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=20)
    | st.sampled_from(["2024-09-10 09:00", "2024-09-10 25:00", "N", "Y", 1725984000]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["event_key", "name", "event_start", "event_end", "active", "speakers", "start_time_ts", "id"]
            ),
            inner,
            max_size=8,
        )
    ),
    max_leaves=20,
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Every message names the document: "fuzz.src: why", "fuzz.src:LINE: why", or the ingest's
# "nothing found in fuzz.src" (with what each document lost).
NAMES_THE_SOURCE = re.compile(r"fuzz\.src(:\d+)?: \S|no session with a title and a time found in fuzz\.src( \(.+\))?$")
# The one message about the whole schedule rather than one document: no source states a zone.
NO_ZONE = "no time zone for this schedule: no source states one; pass --tz ZONE, e.g. --tz Europe/Paris"


def read_cleanly(reader: Reader, text: str, tz: str | None) -> None:
    try:
        load_documents([Document("fuzz.src", text)], tz, format=reader.name)
    except FeedsError as exc:
        assert NAMES_THE_SOURCE.match(str(exc)) or str(exc) == NO_ZONE, str(exc)
        assert "\n" not in str(exc)


@SETTINGS
@given(st.lists(ICS_LINES | st.text(max_size=30), max_size=30), st.sampled_from([None, "Europe/Paris"]))
def test_ics_lines_in_any_order(lines: list[str], tz: str | None) -> None:
    read_cleanly(ICS, "\r\n".join(["BEGIN:VCALENDAR", "VERSION:2.0", *lines, "END:VCALENDAR"]), tz)


@SETTINGS
@given(st.lists(JSON_VALUES, max_size=5), st.sampled_from([None, "America/Los_Angeles"]))
def test_sched_json_of_any_shape(items: list[object], tz: str | None) -> None:
    read_cleanly(JSON, json.dumps(items), tz)


@SETTINGS
@given(
    st.lists(
        st.lists(st.text(max_size=25) | st.sampled_from(["2019-05-05 12:00:00", "N", '"']), max_size=6), max_size=6
    )
)
def test_sched_csv_rows_of_any_shape(rows: list[list[str]]) -> None:
    body = "\n".join(",".join(row) for row in rows)
    read_cleanly(CSV, "event_key,active,name,event_start,event_end,speakers\n" + body, "America/Detroit")
