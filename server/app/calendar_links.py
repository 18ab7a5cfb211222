""" "Add to my calendar" links for web calendars that take an event or a feed in a GET link.

Google Calendar's event template and Outlook on the web's compose deeplink pre-fill a new event
(no API key, nothing sent until the person saves it); Outlook's "add from web" subscribes to a
feed URL. Times go as UTC instants, so neither service has to guess a zone.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from feeds.model import Conference, Session

GOOGLE_EVENT = "https://calendar.google.com/calendar/render"
OUTLOOK_EVENT = "https://outlook.live.com/calendar/0/deeplink/compose"
OUTLOOK_SUBSCRIBE = "https://outlook.live.com/calendar/0/addfromweb"
# The links are GET requests; keep them well inside what browsers and the services accept.
_DETAILS_MAX = 300


def _details(session: Session) -> str:
    text = session.description
    if len(text) > _DETAILS_MAX:
        text = text[: _DETAILS_MAX - 1].rstrip() + "…"
    return text


def _where(conference: Conference, session: Session) -> str:
    room = session.room.name if session.room else None
    return ", ".join(p for p in (room, conference.city) if p)


def google_event_link(conference: Conference, session: Session, *, details: bool = True) -> str:
    """Google Calendar's "add this event" template link."""
    stamp = "%Y%m%dT%H%M%SZ"
    query = {
        "action": "TEMPLATE",
        "text": session.title,
        "dates": f"{session.start.strftime(stamp)}/{session.end.strftime(stamp)}",
        "details": _details(session) if details else "",
        "location": _where(conference, session),
        "ctz": conference.timezone,
    }
    return f"{GOOGLE_EVENT}?{urlencode(_present(query), quote_via=quote)}"


def outlook_event_link(conference: Conference, session: Session, *, details: bool = True) -> str:
    """Outlook on the web's new-event form, pre-filled."""
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    query = {
        "path": "/calendar/action/compose",
        "rru": "addevent",
        "subject": session.title,
        "startdt": session.start.strftime(stamp),
        "enddt": session.end.strftime(stamp),
        "body": _details(session) if details else "",
        "location": _where(conference, session),
    }
    return f"{OUTLOOK_EVENT}?{urlencode(_present(query), quote_via=quote)}"


def outlook_subscribe_link(feed_url: str, name: str) -> str:
    """Outlook on the web's "subscribe from web" form for an https feed URL."""
    query = {"url": feed_url, "name": name}
    return f"{OUTLOOK_SUBSCRIBE}?{urlencode(query, quote_via=quote)}"


def _present(query: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in query.items() if v}
