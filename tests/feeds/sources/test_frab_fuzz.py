"""Mutated frab schedules never crash the readers or the merge: they read, or fail with one line
(a FeedsError naming the file)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feeds.errors import FeedsError
from feeds.pipeline import load_documents
from feeds.sources.documents import Document
from feeds.sources.frab_json import READER as JSON_READER
from feeds.sources.frab_xml import READER as XML_READER

XML = """<?xml version="1.0" encoding="UTF-8"?>
<schedule>
  <conference><title>Fuzz Con</title><time_zone_name>Europe/Berlin</time_zone_name><day_change>04:00</day_change></conference>
  <day date="2024-12-27" index="1">
    <room name="Saal 1">
      <event guid="270fa44c-821a-577f-8ca3-33e8d4a8c2a7" id="2">
        <date>2024-12-27T10:30:00+01:00</date><start>10:30</start><duration>00:30</duration>
        <room>Saal 1</room><title>Opening</title><track>CCC</track><type>Ceremony</type>
        <abstract>&lt;p&gt;Hi&lt;/p&gt;</abstract><persons><person id="1">Ada</person></persons>
      </event>
      <event id="3"><start>01:30</start><duration>1:02:00</duration><title>Night</title></event>
    </room>
  </day>
</schedule>
"""
JSON = """{"schedule": {"version": "1", "conference": {"title": "Fuzz Camp", "time_zone_name": "Europe/Berlin",
 "days": [{"index": 1, "date": "2019-08-21", "day_start": "2019-08-21T09:00:00+02:00",
  "rooms": {"Curie": [{"guid": "a0a0fcfe-b7fb-46e3-84b6-97a5406016b4", "date": "2019-08-21T11:00:00+02:00",
   "start": "11:00", "duration": "00:30", "title": "Opening", "persons": [{"public_name": "jinxx"}]},
   {"id": 7, "start": "02:00", "duration": "00:45", "title": "Owls"}]}}]}}}
"""
ALPHABET = st.characters(blacklist_categories=["Cs"])
EDIT = st.tuples(st.integers(0, 10_000), st.integers(0, 8), st.text(ALPHABET, max_size=6))


def _read_and_merge(name: str, text: str) -> None:
    reader = XML_READER if name.endswith(".xml") else JSON_READER
    try:
        load_documents([Document(name, text)], "Europe/Berlin", format=reader.name)
    except FeedsError as exc:
        # "fuzz.xml: why", "fuzz.xml:LINE: why", "fuzz.xml states time zone X, but --tz says ...",
        # or the ingest's "nothing found in fuzz.xml" (with what the document lost).
        named = re.escape(name)
        assert re.match(
            rf"{named}(:\d+)?: \S|{named} states time zone |no session with a title and a time found in {named}( \(.+\))?$",
            str(exc),
        ), str(exc)
        assert "\n" not in str(exc)


def _mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    for at, cut, insert in edits:
        i = at % (len(text) + 1)
        text = text[:i] + insert + text[i + cut :]
    return text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EDIT, max_size=8))
def test_mutated_schedule_xml(edits: list[tuple[int, int, str]]) -> None:
    _read_and_merge("fuzz.xml", _mutate(XML, edits))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EDIT, max_size=8))
def test_mutated_schedule_json(edits: list[tuple[int, int, str]]) -> None:
    _read_and_merge("fuzz.json", _mutate(JSON, edits))
