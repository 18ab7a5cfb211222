""" "Add to my calendar" links for web calendars that take an event or a feed in a GET link.

Google Calendar's event template and Outlook on the web's compose deeplink pre-fill a new event
(no API key, nothing sent until the person saves it); Outlook's "add from web" subscribes to a
feed URL. Times go as UTC instants, so neither service has to guess a zone.

A static build makes two event links for every session's card and two for its page: urllib's
`urlencode` and `quote` (a Python call per byte) were a large share of a build's time. The query
here is joined from values quoted once each by `server.links.quote_component`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from feeds.model import Conference, Session
from server.links import Site, quote_component

GOOGLE_EVENT = "https://calendar.google.com/calendar/render"
OUTLOOK_EVENT = "https://outlook.live.com/calendar/0/deeplink/compose"
OUTLOOK_SUBSCRIBE = "https://outlook.live.com/calendar/0/addfromweb"
# The links are GET requests; keep them well inside what browsers and the services accept.
_DETAILS_MAX = 300
_COMPOSE = "%2Fcalendar%2Faction%2Fcompose"  # quote_component("/calendar/action/compose")


def _query(pairs: tuple[tuple[str, str], ...]) -> str:
    """`urlencode` of the pairs whose quoted value is not empty: `quote_component("")` is the
    only empty quoting, so these are the pairs urlencode of the unquoted values kept."""
    return "&".join(f"{key}={value}" for key, value in pairs if value)


@lru_cache(maxsize=64)
def _zone(timezone: str) -> str:
    """The quoted zone name: the same for every session of a conference."""
    return quote_component(timezone)


def _stamp(moment: datetime) -> str:
    """`moment.strftime("%Y-%m-%dT%H:%M:%SZ")` (a year before 1000 unpadded, as the C library
    writes it), without strftime's detour through the C library, about half the cost of
    the links. Session instants are held in UTC (feeds.model), so these are UTC instants."""
    return f"{moment.year}-{moment.month:02}-{moment.day:02}T{moment.hour:02}:{moment.minute:02}:{moment.second:02}Z"


def _details(session: Session) -> str:
    text = session.description
    if len(text) > _DETAILS_MAX:
        text = text[: _DETAILS_MAX - 1].rstrip() + "…"
    return text


def _where(conference: Conference, session: Session) -> str:
    room = session.room.name if session.room else None
    return ", ".join(p for p in (room, conference.city) if p)


def event_links(conference: Conference, session: Session, *, details: bool = True) -> tuple[str, str]:
    """The Google and Outlook links of one session, its stamps and texts quoted once for both."""
    start, end = _stamp(session.start), _stamp(session.end)
    title = quote_component(session.title)
    about = quote_component(_details(session)) if details else ""
    where = quote_component(_where(conference, session))
    # A stamp is digits, "-", "T", ":" and "Z" (a year has no sign), of which quoting changes
    # ":" only; Google's compact stamps are the same instants without "-" and ":", joined by
    # a quoted "/".
    dates = f"{start}%2F{end}".replace("-", "").replace(":", "")
    google = (
        ("action", "TEMPLATE"),
        ("text", title),
        ("dates", dates),
        ("details", about),
        ("location", where),
        ("ctz", _zone(conference.timezone)),
    )
    outlook = (
        ("path", _COMPOSE),
        ("rru", "addevent"),
        ("subject", title),
        ("startdt", start.replace(":", "%3A")),
        ("enddt", end.replace(":", "%3A")),
        ("body", about),
        ("location", where),
    )
    return f"{GOOGLE_EVENT}?{_query(google)}", f"{OUTLOOK_EVENT}?{_query(outlook)}"


def offered_links(conference: Conference, session: Session, *, details: bool = True) -> tuple[str | None, str | None]:
    """`event_links` of a session people can still add to a calendar; none of a cancelled one."""
    return (None, None) if session.cancelled else event_links(conference, session, details=details)


def outlook_subscribe_link(feed_url: str, name: str) -> str:
    """Outlook on the web's "subscribe from web" form for an https feed URL."""
    # Both values go in even when empty, as urlencode puts them.
    return f"{OUTLOOK_SUBSCRIBE}?url={quote_component(feed_url)}&name={quote_component(name)}"


@dataclass(frozen=True)
class FeedLinks:
    """Where a page offers a feed: its site-relative path, its URL, and the links that subscribe
    a calendar app, Google Calendar and Outlook on the web to it."""

    path: str
    url: str
    webcal: str
    google: str
    outlook: str


def feed_links(site: Site, path: str, title: str) -> FeedLinks:
    """The links to the feed at `path` (site-relative), named `title` in Outlook."""
    url = site.url(path)
    return FeedLinks(path, url, site.webcal(path), site.google(path), outlook_subscribe_link(url, title))
