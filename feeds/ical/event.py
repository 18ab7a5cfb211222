"""One session as a VEVENT (RFC 5545 section 3.6.1), rendered to bytes once per revision.

Everything in the output is derived from the session and the conference, never from the clock,
so the same content always yields the same bytes (feeds keep their ETag; CalDAV sees no change).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache

from icalendar import Event

from feeds.ical.alarm import build_alarm
from feeds.ical.contentline import ensure_folded
from feeds.ical.text import Categories, Text, clean_text
from feeds.ical.writer import vevent, writes_tzid
from feeds.model import Conference, Session
from feeds.urls import session_anchor
from feeds.web_links import web_link

# DTSTAMP when a session does not say when its content last changed. A fixed instant rather
# than "now" keeps the bytes deterministic; LAST-MODIFIED is then omitted because it is unknown.
UNKNOWN_MODIFIED = datetime(1970, 1, 1, tzinfo=UTC)


def uid(conference: Conference, session: Session) -> str:
    """The stable UID (RFC 5545 3.8.4.7). It does not contain the deployment URL, so a
    one-off download, the feeds and CalDAV pushes of the same session all share it."""
    return f"{session.id}@{conference.slug}.confcal"


def session_url(session: Session, base_url: str | None) -> str | None:
    """The session's card on our schedule page when we know where we are deployed (`base_url`
    is the conference's page), else the source's link if it is an http(s) one (feeds.web_links)."""
    if base_url:
        return f"{base_url.rstrip('/')}/#{session_anchor(session.id)}"
    return web_link(session.url)


def location(conference: Conference, session: Session) -> str:
    """Room, then venue, then city, skipping parts already said (venue "Paris, France" and
    city "Paris" would otherwise read "Paris, France, Paris")."""
    parts: list[str] = []
    for part in (
        session.room.name if session.room else None,
        conference.venue,
        conference.city,
    ):
        if part and not any(part in said for said in parts):
            parts.append(part)
    return ", ".join(parts)


def description(session: Session, url: str | None) -> str:
    """Plain text: the subtitle, the abstract, then speakers with affiliations, track, level,
    language, a do-not-record note and the link, then the source's links (recordings, slides,
    chat rooms ...), one a line, as every client shows DESCRIPTION alike (URL holds only one)."""
    facts: list[str] = []
    if session.speakers:
        names = [f"{s.name} ({s.affiliation})" if s.affiliation else s.name for s in session.speakers]
        facts.append("Speakers: " + ", ".join(names))
    if session.track:
        facts.append(f"Track: {session.track.name}")
    if session.level:
        facts.append(f"Level: {session.level.name}")
    if session.language:
        facts.append(f"Language: {session.language}")
    if session.do_not_record:
        facts.append("Not recorded, at the speakers' request")
    if url:
        facts.append(url)
    links = [
        f"{link.kind.capitalize()}: " + (f"{link.title} " if link.title else "") + link.url
        for link in session.links
        if web_link(link.url)
    ]
    blocks = [session.subtitle or "", session.description.strip(), "\n".join(facts), "\n".join(links)]
    return "\n\n".join(block for block in blocks if block)


def categories(session: Session) -> list[str]:
    values = [
        session.track.name if session.track else "",
        session.kind,
        session.level.name if session.level else "",
    ]
    seen: list[str] = []
    for value in values:
        if value and value not in seen:
            seen.append(value)
    return seen


@lru_cache(maxsize=4096)
def _ambiguous(instant: datetime, zone: tzinfo) -> bool:
    """True for an instant the event's times are written in UTC for, not with TZID, in `zone`:

    - a wall time that occurs twice (the repeated hour at a fall-back): RFC 5545 3.3.5 reads
      such a TZID time as its first occurrence, so the second one cannot be written with TZID;
    - a time within a day of a change of the zone's offset: ts-ics expands the VTIMEZONE's RRULEs
      to whole days, so it reads times near a change with the wrong offset (an hour off, on the
      change day or, west of Greenwich, the day after) whatever the VTIMEZONE says.

    Once per instant and zone: a conference's thousands of sessions share a few hundred start
    and end times, and each answer takes four conversions between zones."""
    local, utc = instant.astimezone(zone), instant.astimezone(UTC)
    other = local.replace(fold=1 - local.fold)
    if other.utcoffset() != local.utcoffset():
        return True
    return any((utc + step).astimezone(zone).utcoffset() != local.utcoffset() for step in _DAY_EITHER_SIDE)


_DAY_EITHER_SIDE = (timedelta(days=-1), timedelta(days=1))


def build_event(
    conference: Conference,
    session: Session,
    *,
    base_url: str | None = None,
    alarm: int | None = None,
) -> Event:
    """The VEVENT component. Start and end carry TZID = the conference zone (RFC 5545 3.2.19),
    except around a fall-back fold (see `_ambiguous`); the matching VTIMEZONE is the calendar's
    business (see feeds.ical.timezone). `alarm` (minutes) adds one VALARM (feeds.ical.alarm)."""
    zone = conference.zone
    url = session_url(session, base_url)
    event = Event()
    # icalendar writes property names upper case, and (7.x) DTSTAMP and LAST-MODIFIED in UTC
    # whatever zone they carry; the astimezone(UTC) keeps them UTC should a version not.
    event.add("uid", uid(conference, session))
    event.add("dtstamp", (session.modified or UNKNOWN_MODIFIED).astimezone(UTC))
    if session.modified is not None:
        event.add("last-modified", session.modified.astimezone(UTC))
    event.add("sequence", session.revision)
    start, end = session.start.astimezone(zone), session.end.astimezone(zone)
    if _ambiguous(session.start, zone) or _ambiguous(session.end, zone):
        start, end = start.astimezone(UTC), end.astimezone(UTC)
    event.add("dtstart", start)
    if end == start:
        # RFC 5545 3.8.2.2: DTEND must be later than DTSTART; khal reads an equal one as an hour.
        event.add("duration", timedelta(0))
    else:
        event.add("dtend", end)
    event.add("summary", Text(session.title))
    text = clean_text(description(session, url))
    if text:
        event.add("description", Text(text))
    where = location(conference, session)
    if where:
        event.add("location", Text(where))
    cats = categories(session)
    if cats:
        event.add("categories", Categories(cats))
    if url:
        event.add("url", url)
    event.add("status", "CANCELLED" if session.cancelled else "CONFIRMED")
    if alarm is not None:
        event.add_component(build_alarm(alarm, session.title))
    return event


def render_event(
    conference: Conference,
    session: Session,
    *,
    base_url: str | None = None,
    alarm: int | None = None,
) -> bytes:
    """The VEVENT as folded CRLF content lines (RFC 5545 3.1), BEGIN to END inclusive.

    The common case is written directly (feeds.ical.writer), byte for byte what icalendar
    writes for `build_event`; reminders, UTC-written times and zones icalendar writes another
    way are serialized by icalendar itself, and checked (`ensure_folded`) against a library
    change; the direct writer folds by construction (tests/feeds/ical/test_ical_writer.py checks
    it), so a build's thousands of events skip that check."""
    zone = conference.zone
    start, end = session.start.astimezone(zone), session.end.astimezone(zone)
    if (
        alarm is not None
        or start == end
        or _ambiguous(session.start, zone)
        or _ambiguous(session.end, zone)
        or not writes_tzid(conference.timezone)
    ):
        event = build_event(conference, session, base_url=base_url, alarm=alarm)
        return ensure_folded(event.to_ical())
    url = session_url(session, base_url)
    where = location(conference, session)
    return vevent(
        uid=uid(conference, session),
        dtstamp=(session.modified or UNKNOWN_MODIFIED).astimezone(UTC),
        last_modified=(session.modified.astimezone(UTC) if session.modified is not None else None),
        sequence=session.revision,
        tzid=conference.timezone,
        start=start,
        end=end,
        summary=clean_text(session.title),
        description=clean_text(description(session, url)),
        location=clean_text(where) if where else None,
        categories=[clean_text(c) for c in categories(session)],
        url=url,
        status="CANCELLED" if session.cancelled else "CONFIRMED",
    )
