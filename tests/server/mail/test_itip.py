"""The iTIP calendar of one message (server.mail.itip): the feeds' own VEVENT with the invitation's
identity (UID, SEQUENCE, DTSTAMP), ORGANIZER and ATTENDEE, and METHOD; CANCEL says CANCELLED."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import icalendar
import pytest

from feeds.ical.event import build_event
from server.mail.address import parse_address
from server.mail.itip import Method, itip_calendar
from server.web.demo import demo_schedule
from tests.helpers.vevents import sequence, vevents

NOW = datetime(2026, 4, 1, 9, 30, tzinfo=UTC)
ORGANIZER = parse_address("schedule@conf.example.org")
ATTENDEE = parse_address("ada.lovelace@mail.example.net")
SAME = ("SUMMARY", "DTSTART", "DTEND", "LOCATION", "DESCRIPTION", "URL", "CATEGORIES")


def sent(method: Method, **changes: object) -> tuple[icalendar.Calendar, icalendar.Event]:
    schedule = demo_schedule()
    conference = dataclasses.replace(schedule.conference, **changes)  # type: ignore[arg-type]
    data = itip_calendar(
        method,
        conference,
        schedule.sessions[0],
        uid="abc@invite.confcal",
        sequence=4,
        organizer=ORGANIZER,
        attendee=ATTENDEE,
        now=NOW,
        base_url="https://cal.example.org",
    )
    calendar = icalendar.Calendar.from_ical(data)
    (event,) = vevents(calendar)
    return calendar, event


def test_a_request_carries_the_feeds_event_under_its_own_identity() -> None:
    schedule = demo_schedule()
    feed = build_event(schedule.conference, schedule.sessions[0], base_url="https://cal.example.org")

    calendar, event = sent(Method.REQUEST)

    assert {name: event.get(name).to_ical() for name in SAME} == {name: feed.get(name).to_ical() for name in SAME}
    assert (str(calendar["METHOD"]), str(event["UID"]), sequence(event)) == ("REQUEST", "abc@invite.confcal", 4)
    assert event.decoded("DTSTAMP") == NOW
    assert str(event["ORGANIZER"]) == "mailto:schedule@conf.example.org"
    assert event["ORGANIZER"].params["CN"] == "PyTorch Conference Europe 2026"
    assert dict(event["ATTENDEE"].params) == {"ROLE": "REQ-PARTICIPANT", "PARTSTAT": "NEEDS-ACTION", "RSVP": "FALSE"}
    assert [c.name for c in calendar.subcomponents] == ["VTIMEZONE", "VEVENT"]


def test_a_cancel_says_cancelled_and_keeps_the_times() -> None:
    calendar, event = sent(Method.CANCEL)

    assert (str(calendar["METHOD"]), str(event["STATUS"])) == ("CANCEL", "CANCELLED")
    assert event.decoded("DTSTART") == demo_schedule().sessions[0].start


@pytest.mark.parametrize("zone", ["UTC", "Etc/UTC"])
def test_a_conference_in_utc_needs_no_vtimezone(zone: str) -> None:
    calendar, _ = sent(Method.REQUEST, timezone=zone)

    assert [c.name for c in calendar.subcomponents] == ["VEVENT"]
