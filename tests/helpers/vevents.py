"""Typed reads of a calendar parsed by icalendar: its `walk` gives every component as a
`Component`, and a property as the union of all its value types, so a test that reads a
VEVENT's end or SEQUENCE checks here that it has what it reads."""

from __future__ import annotations

import icalendar


def vevents(calendar: icalendar.Component) -> list[icalendar.Event]:
    """The calendar's VEVENTs, each checked to be read as an `Event`."""
    found: list[icalendar.Event] = []
    for component in calendar.walk("VEVENT"):
        assert isinstance(component, icalendar.Event), f"a VEVENT read as {type(component).__name__}"
        found.append(component)
    return found


def sequence(event: icalendar.Component) -> int:
    """The event's SEQUENCE, which must be there (RFC 5545's default of 0 is not assumed)."""
    value = event["SEQUENCE"]
    assert isinstance(value, icalendar.vInt), f"SEQUENCE read as {value!r}"
    return int(value)
