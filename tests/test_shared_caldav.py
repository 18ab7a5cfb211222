"""The shared CalDAV servers start, take a calendar of a test's own, and store an event in it."""

from __future__ import annotations

import pytest

from tests.helpers.shared_caldav import KINDS, SharedServer

EVENT = b"""BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//confcal tests//EN\r
BEGIN:VEVENT\r
UID:start-check@confcal.test\r
DTSTAMP:20260301T090000Z\r
DTSTART:20260407T070000Z\r
DTEND:20260407T073000Z\r
SUMMARY:Start check\r
END:VEVENT\r
END:VCALENDAR\r
"""


@pytest.mark.parametrize("kind", KINDS)
def test_a_new_calendar_takes_an_event(kind: str, request: pytest.FixtureRequest) -> None:
    server: SharedServer = request.getfixturevalue(kind)
    calendar = server.new_calendar()

    status = server.request("PUT", calendar + "start-check.ics", EVENT, {"Content-Type": "text/calendar"})

    assert status in (201, 204)
