"""Events the CalDAV storage and pusher tests write and compare: two of ours at one start, and an
alarm as Apple's calendars add one to an event."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.helpers.push_helpers import event_ics

START = datetime(2026, 4, 7, 9, 0, tzinfo=UTC)
OURS = event_ics("talk-1@pytorch-conference-europe-2026.confcal", "Talk one", START)
OTHER = event_ics("talk-2@pytorch-conference-europe-2026.confcal", "Talk two", START)

# An alarm as Apple's calendars write it: with a UID of its own (RFC 9074 section 4).
ALARM = (
    b"BEGIN:VALARM\r\nUID:7C1D2E3F@apple.example\r\nACTION:DISPLAY\r\n"
    b"TRIGGER:-PT10M\r\nDESCRIPTION:Talk\r\nEND:VALARM\r\n"
)


def with_alarm(ics: bytes, alarm: bytes = ALARM) -> bytes:
    return ics.replace(b"END:VEVENT", alarm + b"END:VEVENT")
