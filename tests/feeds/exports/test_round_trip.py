"""frab XML -> confcal -> frab XML keeps every event (title, start, duration, room, persons, guid),
and the exports of real conferences validate. Both sides are read here with xml.etree, not with
confcal's reader."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feeds.exports import EXPORTERS
from feeds.model import Schedule
from feeds.pipeline import load_schedule
from feeds.slug import fold

NOW = datetime(2026, 4, 1, tzinfo=UTC)
SAMPLES = ["fosdem_2025_schedule.xml", "ccc_38c3_2024_schedule.xml"]

Event = tuple[str, datetime, timedelta, str, tuple[str, ...]]


def events(xml: bytes) -> dict[str, Event]:
    """guid -> (title, UTC start, duration, room, persons) of every event in a schedule.xml; runs of
    white space in titles and names count as one space."""
    found: dict[str, Event] = {}
    for event in ET.fromstring(xml).iter("event"):
        parts = [int(p) for p in (event.findtext("duration") or "").split(":")]
        days, hours, minutes = ([0] + parts)[-3:]
        found[event.get("guid") or ""] = (
            " ".join((event.findtext("title") or "").split()),
            datetime.fromisoformat(event.findtext("date") or "").astimezone(UTC),
            timedelta(days=days, hours=hours, minutes=minutes),
            event.findtext("room") or "",
            # FOSDEM lists placeholder persons ("-", "--") that name nobody; they are not kept.
            tuple(
                " ".join((p.text or "").split()) for p in event.iter("person") if any(c.isalnum() for c in p.text or "")
            ),
        )
    return found


@pytest.fixture(scope="module", params=SAMPLES)
def sample(request: pytest.FixtureRequest, shared_data: Path) -> tuple[Path, Schedule]:
    path = shared_data / request.param
    return path, load_schedule([str(path)]).schedule


# One FOSDEM event lists its speaker twice, by name and by e-mail address; confcal's speaker matching
# (feeds.people: the address folds to "jehan monnier belledonne ...") keeps one person.
ONE_PERSON = {"9f50bb83-e306-53d2-8b0d-8a27cc9d1c9d": ("Jehan Monnier",)}


def people_folded(found: dict[str, Event]) -> dict[str, Event]:
    """Persons compared as confcal identifies them (feeds.slug.fold): a speaker spelt "Anna" in one
    event and "anna" in another is one person, written the way first seen, in every event."""
    return {guid: (*e[:4], tuple(fold(p) for p in e[4])) for guid, e in found.items()}


def test_round_trip_keeps_every_event(sample: tuple[Path, Schedule]) -> None:
    path, schedule = sample
    original = events(path.read_bytes())
    for guid, persons in ONE_PERSON.items():
        if guid in original:
            original[guid] = (*original[guid][:4], persons)

    exported = events(EXPORTERS["frab-xml"].render(schedule, now=NOW))

    assert len(original) == len(schedule.sessions)
    assert people_folded(exported) == people_folded(original)


def test_export_of_a_real_conference_validates_against_the_xsd(
    sample: tuple[Path, Schedule], frab_xsd: Callable[[bytes], list[str]]
) -> None:
    _, schedule = sample

    assert frab_xsd(EXPORTERS["frab-xml"].render(schedule, now=NOW, base_url="https://cal.example.org")) == []


def test_export_of_a_real_conference_validates_against_the_json_schema(
    sample: tuple[Path, Schedule], c3voc_schema: Callable[[bytes], list[str]]
) -> None:
    _, schedule = sample
    body = EXPORTERS["c3voc-json"].render(schedule, now=NOW)

    assert c3voc_schema(body) == []
    assert sum(len(r) for d in json.loads(body)["schedule"]["conference"]["days"] for r in d["rooms"].values()) == len(
        schedule.sessions
    )
