"""A two-session .ics whose sessions carry the links a test gives: the shape the link tests share."""

from __future__ import annotations


def two_linked_sessions(first_url: str, second_url: str) -> str:
    """ "Scripted" (one@test, 10:00Z) links to `first_url`, "Linked" (two@test, 11:00Z) to `second_url`."""
    return f"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//links//EN
X-WR-CALNAME:Link Con
BEGIN:VEVENT
UID:one@test
SUMMARY:Scripted
DTSTART:20250301T100000Z
DTEND:20250301T103000Z
URL:{first_url}
END:VEVENT
BEGIN:VEVENT
UID:two@test
SUMMARY:Linked
DTSTART:20250301T110000Z
DTEND:20250301T113000Z
URL:{second_url}
END:VEVENT
END:VCALENDAR
"""
