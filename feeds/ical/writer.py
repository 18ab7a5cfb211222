"""A VEVENT written straight to content lines, the same bytes icalendar writes for
`feeds.ical.event.build_event`, at a fraction of the cost.

Building an icalendar `Event` and serializing it (property objects, sorting, parameter
handling, a per-character fold) was most of the time a feed took to render; a 10,000-session
conference has one VEVENT per session and revision. This module writes the lines directly, in
icalendar's order (`Event.canonical_order`, then the other names sorted), with the values
escaped by `feeds.ical.text` and folded by `fold` exactly as icalendar's `_foldline` folds
(RFC 5545 section 3.1). Anything unusual - a reminder, times written in UTC around a fall-back
fold, a zone icalendar does not write as `;TZID=` - goes through icalendar itself, and the
tests compare both writers on the seeds and generated sessions.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from icalendar import Event

from feeds.ical.text import escape

_CRLF = b"\r\n"
_FOLD = b"\r\n "
# icalendar folds before a character that would make the line reach 75 octets: at most 74
# octets a line, continuation lines included (their leading space is the 75th).
_LINE = 74
_CONTINUATION = 0x80  # 10xxxxxx: a byte inside a multi-byte UTF-8 character
_ESCAPES = (0x5C, 0x5E)  # "\" and "^" are never left at a line's end (icalendar issue 1501)


def fold(line: str) -> bytes:
    """One content line as UTF-8, folded as icalendar's `_foldline` folds it, without CRLF."""
    # A line that fits is returned as it is, without the loop.
    data = line.encode("utf-8")
    if len(data) <= _LINE:
        return data
    parts: list[bytes] = []
    start, end = 0, len(data)
    while end - start > _LINE:
        cut = start + _LINE
        while data[cut] & 0xC0 == _CONTINUATION:
            cut -= 1
        if data[cut - 1] in _ESCAPES:
            cut -= 1
        parts.append(data[start:cut])
        start = cut
    parts.append(data[start:])
    return _FOLD.join(parts)


def stamp(moment: datetime) -> str:
    """A UTC DATE-TIME value (RFC 5545 3.3.5, form 2); seconds, as icalendar writes them."""
    return f"{moment.year:04}{moment.month:02}{moment.day:02}T{moment.hour:02}{moment.minute:02}{moment.second:02}Z"


def local(moment: datetime) -> str:
    """A DATE-TIME in its zone, without the zone (RFC 5545 3.3.5, form 3)."""
    return f"{moment.year:04}{moment.month:02}{moment.day:02}T{moment.hour:02}{moment.minute:02}{moment.second:02}"


@lru_cache(maxsize=64)
def writes_tzid(tzid: str) -> bool:
    """True when icalendar writes a time in `tzid` as `;TZID=tzid:` plus the wall time, which
    is what `vevent` writes; other zones (UTC and its aliases among them) go through icalendar."""
    probe = Event()
    probe.add("dtstart", datetime(2026, 1, 15, 12, 0, tzinfo=ZoneInfo(tzid)))
    expected = f"DTSTART;TZID={tzid}:20260115T120000\r\n".encode()
    return bool(probe.to_ical() == b"BEGIN:VEVENT\r\n" + expected + b"END:VEVENT\r\n")


def vevent(
    *,
    uid: str,
    dtstamp: datetime,
    last_modified: datetime | None,
    sequence: int,
    tzid: str,
    start: datetime,
    end: datetime,
    summary: str,
    description: str,
    location: str | None,
    categories: list[str],
    url: str | None,
    status: str,
) -> bytes:
    """The VEVENT's bytes, BEGIN to END. Text values must already be `clean_text`ed (`location` None: none); UTC
    instants (`dtstamp`, `last_modified`) in UTC; `start` and `end` in the zone `tzid`."""
    lines = [
        "SUMMARY:" + escape(summary),
        f"DTSTART;TZID={tzid}:{local(start)}",
        f"DTEND;TZID={tzid}:{local(end)}",
        "DTSTAMP:" + stamp(dtstamp),
        "UID:" + escape(uid),
        f"SEQUENCE:{sequence}",
    ]
    # The remaining properties in name order, as icalendar sorts them.
    if categories:
        lines.append("CATEGORIES:" + ",".join(escape(c) for c in categories))
    if description:
        lines.append("DESCRIPTION:" + escape(description))
    if last_modified is not None:
        lines.append("LAST-MODIFIED:" + stamp(last_modified))
    if location is not None:
        lines.append("LOCATION:" + escape(location))
    lines.append("STATUS:" + status)
    if url:
        lines.append("URL:" + url)
    body = _CRLF.join(fold(line) for line in lines)
    return b"BEGIN:VEVENT\r\n" + body + b"\r\nEND:VEVENT\r\n"
