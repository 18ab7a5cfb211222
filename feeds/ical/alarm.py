"""Reminders on a feed, opt-in per URL (`?alarm=10`): one VALARM per VEVENT.

RFC 5545 section 3.6.6: a DISPLAY alarm needs ACTION, TRIGGER and DESCRIPTION; TRIGGER is a
duration relative to DTSTART, negative for "before". The reminder is chosen by the subscriber's
URL, never stored, so feeds without the parameter keep their exact bytes.
"""

from __future__ import annotations

from datetime import timedelta

from icalendar import Alarm

from feeds.errors import AlarmError
from feeds.ical.text import Text, clean_text

# A day: longer reminders are not what a conference feed is for, and the bound keeps the
# number of cached variants of an event small.
MAX_ALARM_MINUTES = 1440


def parse_alarm(value: str) -> int:
    """Minutes before the start from the URL's `alarm=` value; AlarmError names what is wrong."""
    text = value.strip()
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_ALARM_MINUTES:
        raise AlarmError(f"alarm must be whole minutes from 0 to {MAX_ALARM_MINUTES}, got {value[:40]!r}")
    return int(text)


def build_alarm(minutes: int, title: str) -> Alarm:
    """The VALARM (RFC 5545 3.6.6): ACTION:DISPLAY, TRIGGER `minutes` before DTSTART (3.8.6.3),
    DESCRIPTION the session's title."""
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("trigger", timedelta(minutes=-minutes))
    alarm.add("description", Text(clean_text(title) or "Session"))
    return alarm
