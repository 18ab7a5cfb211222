"""Whole e-mail messages (RFC 5322, MIME): the confirmation asked for before anything else is
sent, and the invitations (iMIP, RFC 6047).

An invitation is `multipart/alternative`: a short text part for mail programs that show text,
then the `text/calendar; method=...; charset=UTF-8` part that Gmail, Outlook and Apple Mail turn
into the event (RFC 6047 section 2.4: the method parameter must match the calendar's METHOD).
Every message carries its stop link as `List-Unsubscribe` with `List-Unsubscribe-Post:
List-Unsubscribe=One-Click` (RFC 8058: one POST stops, no page to visit) and
`Auto-Submitted: auto-generated` (RFC 3834: vacation responders stay quiet).
Pure: the caller passes the clock's reading and the links.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import Address as HeaderAddress
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from feeds.model import Conference, Session
from server.mail.address import Address
from server.mail.itip import Method, itip_calendar


@dataclass(frozen=True)
class Links:
    """The absolute links a message carries."""

    stop: str  # RFC 8058's one-click URL; a GET of it shows a page asking how to stop
    schedule: str  # the conference's schedule page


def _envelope(subject: str, conference: Conference, sender: Address, to: Address, now: datetime) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = HeaderAddress(display_name=conference.name, username=sender.local, domain=sender.domain)
    message["To"] = HeaderAddress(username=to.local, domain=to.domain)
    message["Date"] = format_datetime(now)
    message["Message-ID"] = make_msgid(domain=sender.domain)
    message["Auto-Submitted"] = "auto-generated"
    return message


def confirmation(
    conference: Conference, sender: Address, to: Address, *, confirm: str, now: datetime, hours: int
) -> EmailMessage:
    """The one message sent before the address is confirmed: a link, and nothing else asked."""
    message = _envelope(f"Confirm: {conference.name} schedule invitations", conference, sender, to, now)
    message.set_content(
        f"Someone asked for the sessions they picked at {conference.name} to be sent to this address "
        "as calendar invitations, which then follow every change of the schedule.\n\n"
        f"To start, open this link within {hours} hours:\n\n{confirm}\n\n"
        "If it was not you, ignore this message: nothing more will be sent to this address.\n"
    )
    return message


def invitation(
    method: Method,
    conference: Conference,
    session: Session,
    *,
    uid: str,
    sequence: int,
    sender: Address,
    to: Address,
    links: Links,
    now: datetime,
    base_url: str | None = None,
) -> EmailMessage:
    """One session's REQUEST (new, moved, retitled, re-roomed) or CANCEL (withdrawn, unpicked)."""
    zone = conference.zone
    start = session.start.astimezone(zone)
    when = f"{start:%a %d %b %Y, %H:%M}-{session.end.astimezone(zone):%H:%M} ({conference.timezone})"
    if method is Method.CANCEL:
        subject = f"Cancelled: {session.title}"
        lead = "This session is no longer in your picks, or was withdrawn from the schedule:"
    else:
        subject = f"{session.title} - {when}"
        lead = "A session you picked, as it stands in the schedule:"
    message = _envelope(subject, conference, sender, to, now)
    message["List-Unsubscribe"] = f"<{links.stop}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    room = f"\n{session.room.name}" if session.room else ""
    message.set_content(
        f"{lead}\n\n{session.title}\n{when}{room}\n\n"
        f"The schedule: {links.schedule}\n"
        f"Your calendar keeps this event up to date with the schedule. To stop these messages: {links.stop}\n"
    )
    calendar = itip_calendar(
        method,
        conference,
        session,
        uid=uid,
        sequence=sequence,
        organizer=sender,
        attendee=to,
        now=now,
        base_url=base_url,
    )
    # base64 keeps the calendar's CRLF line ends and folded lines byte for byte.
    message.add_alternative(
        calendar, maintype="text", subtype="calendar", cte="base64", params={"method": method.value, "charset": "UTF-8"}
    )
    return message
