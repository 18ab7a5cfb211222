"""One session as an iTIP message's calendar (RFC 5546): METHOD:REQUEST to put it into the
attendee's calendar or move it there, METHOD:CANCEL to take it out.

The VEVENT is the feeds' own (feeds.ical.event.build_event: the same times, zone, title, text,
location, link), with what iTIP needs in place of the feed's identity (RFC 5546 section 3.2):
- UID: the invitation's own, not the feed's (a calendar that also subscribes to the feed, or
  syncs it by CalDAV, would otherwise hold one UID twice; Cyrus refuses that);
- SEQUENCE: the invitation's, which follows the session's revision and only ever rises
  (section 2.1.4: a client ignores a message whose SEQUENCE is below the one it holds);
- DTSTAMP: when the message was made (section 2.1.5 orders messages of one SEQUENCE by it);
- ORGANIZER: the conference's sender address; ATTENDEE: the address, RSVP=FALSE (no reply is
  asked for or read: the schedule is not negotiable).
CANCEL keeps the event's times (Outlook finds the event to remove by UID, but shows the times)
and says STATUS:CANCELLED (section 3.2.5).
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

from icalendar import Calendar, vCalAddress

from feeds.ical.calendar import PRODID
from feeds.ical.contentline import ensure_folded
from feeds.ical.event import build_event
from feeds.ical.text import Text
from feeds.ical.timezone import vtimezone
from feeds.model import Conference, Session
from server.mail.address import Address


class Method(StrEnum):
    REQUEST = "REQUEST"
    CANCEL = "CANCEL"


def itip_calendar(
    method: Method,
    conference: Conference,
    session: Session,
    *,
    uid: str,
    sequence: int,
    organizer: Address,
    attendee: Address,
    now: datetime,
    base_url: str | None = None,
) -> bytes:
    """The VCALENDAR of one message: METHOD, a VTIMEZONE when the event refers to one, one VEVENT."""
    event = build_event(conference, session, base_url=base_url)
    for name in ("UID", "SEQUENCE", "DTSTAMP", "STATUS"):
        del event[name]
    event.add("uid", uid)
    event.add("sequence", sequence)
    event.add("dtstamp", now.astimezone(UTC))
    event.add("status", "CANCELLED" if method is Method.CANCEL or session.cancelled else "CONFIRMED")
    chair = vCalAddress(f"mailto:{organizer}")
    chair.params["CN"] = Text(conference.name)
    event.add("organizer", chair)
    guest = vCalAddress(f"mailto:{attendee}")
    guest.params["ROLE"] = "REQ-PARTICIPANT"
    guest.params["PARTSTAT"] = "NEEDS-ACTION" if method is Method.REQUEST else "DECLINED"
    guest.params["RSVP"] = "FALSE"
    event.add("attendee", guest)
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", method.value)
    # A VTIMEZONE only when the event refers to one, as in the feeds (feeds.ical.calendar): UTC
    # zones and times near an offset change are written with "Z".
    if "TZID" in event["DTSTART"].params:
        calendar.add_component(vtimezone(conference.timezone))
    calendar.add_component(event)
    return ensure_folded(calendar.to_ical())
