"""VCALENDAR assembly (RFC 5545 section 3.4, 3.7; RFC 7986 section 5) from cached VEVENT bytes.

The header and the VTIMEZONE are small and cached by value; the events come from an
EventCache, so building a feed is mostly a join of bytes already rendered.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from functools import lru_cache, partial
from operator import attrgetter

from icalendar import Calendar, vDuration

from feeds.ical.cache import EventCache
from feeds.ical.contentline import ensure_folded
from feeds.ical.event import render_event
from feeds.ical.text import Text, clean_text, escape
from feeds.ical.timezone import vtimezone_bytes
from feeds.ical.writer import fold
from feeds.model import Conference, Session

# Stable on purpose: no version number, so upgrading confcal does not change every feed's bytes.
PRODID = "-//confcal//Conference schedule feeds//EN"
_CRLF = b"\r\n"
_END = b"END:VCALENDAR\r\n"
_SESSION_START, _SESSION_END = attrgetter("start"), attrgetter("end")


# Stands for the title in the cached header template: plain ASCII, short enough never to fold.
_TITLE = "TITLE-PLACEHOLDER"


def header_calendar(title: str, tzid: str, refresh: timedelta, method: str | None) -> Calendar:
    """A VCALENDAR with the calendar properties every feed and download has, and no component."""
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    if method:
        cal.add("method", method)
    cal.add("name", Text(title))  # RFC 7986 5.1
    cal.add("x-wr-calname", Text(title))  # the de-facto name for Apple, Google and Outlook
    cal.add("x-wr-timezone", tzid)
    # RFC 7986 5.7 wants VALUE=DURATION spelt out; X-PUBLISHED-TTL is Outlook's equivalent.
    cal.add("refresh-interval", vDuration(refresh), parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", vDuration(refresh))
    return cal


@lru_cache(maxsize=64)
def _header_template(tzid: str, refresh: timedelta, method: str | None) -> bytes:
    """BEGIN:VCALENDAR and the calendar properties, without the END line, titled `_TITLE`."""
    data: bytes = header_calendar(_TITLE, tzid, refresh, method).to_ical()
    assert data.endswith(_END)
    return ensure_folded(data[: -len(_END)])


@lru_cache(maxsize=64)
def _header_parts(tzid: str, refresh: timedelta, method: str | None) -> tuple[bytes, bytes, bytes]:
    """`_header_template` cut around its NAME and X-WR-CALNAME lines: the lines before NAME,
    those between the two, and those after X-WR-CALNAME, each piece whole CRLF-ended lines (or
    empty). Everything in them depends only on the arguments, so every feed and download of a
    conference shares them."""
    lines = _header_template(tzid, refresh, method).split(_CRLF)
    name, calname = lines.index(f"NAME:{_TITLE}".encode()), lines.index(f"X-WR-CALNAME:{_TITLE}".encode())
    assert name < calname  # the template's order, which the pieces below keep
    return (
        b"".join(line + _CRLF for line in lines[:name]),
        b"".join(line + _CRLF for line in lines[name + 1 : calname]),
        _CRLF.join(lines[calname + 1 :]),  # the template ends with CRLF: its last piece is b""
    )


@lru_cache(maxsize=1024)
def _header(title: str, tzid: str, refresh: timedelta, method: str | None) -> bytes:
    """The header with the title's lines (RFC 7986 5.1 NAME, X-WR-CALNAME) filled in: TEXT
    (RFC 5545 3.3.11) cleaned and escaped as `feeds.ical.text.Text` writes it, folded (3.1) by
    `feeds.ical.writer.fold`, which folds as icalendar's Contentline does (never after a
    backslash or caret; tests/feeds/ical/test_ical_writer.py compares the two on any line).
    Every session download has its own title, and building icalendar objects per title (a
    Contentline and its per-character fold) would cost more than the download's event."""
    before, between, after = _header_parts(tzid, refresh, method)
    value = escape(clean_text(title))
    return b"".join((before, fold("NAME:" + value), _CRLF, between, fold("X-WR-CALNAME:" + value), _CRLF, after))


def render_calendar(
    conference: Conference,
    sessions: Sequence[Session],
    *,
    title: str,
    base_url: str | None = None,
    cache: EventCache | None = None,
    refresh: timedelta = timedelta(hours=1),
    method: str | None = "PUBLISH",
    alarm: int | None = None,
) -> bytes:
    """A whole VCALENDAR: CRLF lines folded at 75 octets, never inside a UTF-8 character.

    Deterministic: the same arguments give the same bytes (nothing reads the clock). Events are
    written in the order given. `method=None` leaves METHOD out, as CalDAV requires for stored
    calendar object resources (RFC 4791 section 4.1). `alarm` (minutes before the start)
    gives every event one VALARM; None (the default) leaves the bytes as they always were.
    """
    render = partial(render_event, conference, base_url=base_url, alarm=alarm)
    events = (
        list(map(render, sessions)) if cache is None else cache.events(conference, sessions, base_url, render, alarm)
    )
    parts = [_header(title, conference.timezone, refresh, method)]
    # A VTIMEZONE only when an event refers to it (UTC zones and fold-hour events are written
    # with "Z" times; see feeds.ical.event).
    if any(b"\r\nDTSTART;TZID=" in event for event in events):
        parts.append(vtimezone_bytes(conference.timezone))
    parts.extend(events)
    parts.append(_END)
    return b"".join(parts)


def render_session(
    conference: Conference,
    session: Session,
    *,
    base_url: str | None = None,
    method: str | None = "PUBLISH",
    cache: EventCache | None = None,
) -> bytes:
    """A VCALENDAR holding exactly this session's VEVENT, with the same UID and content as in
    the feeds: for one-off downloads, and with `method=None` for a CalDAV PUT."""
    return render_calendar(
        conference,
        [session],
        title=f"{conference.name} - {session.title}",
        base_url=base_url,
        cache=cache,
        method=method,
    )
