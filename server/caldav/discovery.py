"""From a server's address to the account's calendars (RFC 6764 section 6, RFC 4791 section 6.2).

1. PROPFIND DAV:current-user-principal (RFC 5397) on `/.well-known/caldav`, following redirects
   on the same origin; when that gives no principal, on the URL as given (SOGo answers the
   well-known URI with a plain 200 page, so its users give its DAV root).
2. PROPFIND CALDAV:calendar-home-set on the principal.
3. PROPFIND Depth 1 on the home: its calendar collections, with display name, Apple's
   calendar-color and supported-calendar-component-set.

The parsers are pure functions of a multistatus body; the requests go through DavStorage's
`caldav.DAVClient` (the shared outbound guard, one deadline, the size cap, its status-to-error
mapping). Kept ours rather than the library's `principal()` / `calendars()`, for two reasons: its
session follows no redirect (the well-known URI is one), and its calendars need a request each
for colour and components, where one Depth 1 PROPFIND here gives all of them.
Redirects are followed by hand, and only on the same origin: the credentials go preemptively on
every request, so a hop to another host would hand them over. Every hop's connection passes the
address guard again.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast
from urllib.parse import unquote, urljoin, urlsplit
from xml.etree.ElementTree import Element

from caldav.collection import Calendar as DavCalendar
from caldav.collection import CalendarSet
from caldav.lib import error as dav_error

from feeds.outbound.urls import public_url
from server.caldav.dav import DavStorage
from server.caldav.errors import CannotCreateCalendar, NoCalDAV, NoCalendarHome, NoSuchCalendar
from server.caldav.target import server_address
from server.crypto import Password

_DAV = "DAV:"
_CALDAV = "urn:ietf:params:xml:ns:caldav"
_APPLE = "http://apple.com/ns/ical/"
_XML = {"Content-Type": "application/xml; charset=utf-8"}
_PRINCIPAL_BODY = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>'
)
_HOME_BODY = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">'
    "<d:prop><c:calendar-home-set/></d:prop></d:propfind>"
)
_CALENDARS_BODY = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/">'
    "<d:prop><d:resourcetype/><d:displayname/><a:calendar-color/><c:supported-calendar-component-set/>"
    "</d:prop></d:propfind>"
)
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Real servers redirect the well-known URI once; a few hops allow for a proxy in front.
MAX_HOPS = 5


@dataclass(frozen=True)
class Calendar:
    url: str  # absolute, with the trailing slash of a collection
    name: str | None  # DAV:displayname, None when the server has none
    color: str | None  # Apple's calendar-color as sent ("#AAAAAAFF")
    events: bool  # takes VEVENTs (an absent supported-calendar-component-set means any component)

    @property
    def label(self) -> str:
        """The display name, else the URL's last path segment."""
        return self.name or unquote(self.url.rstrip("/").rsplit("/", 1)[-1])


@dataclass(frozen=True)
class Discovery:
    principal: str
    home: str
    calendars: tuple[Calendar, ...]


# -- parsers: one multistatus body each ----------------------------------------------------------


def _found_props(response: Element) -> Iterator[Element]:
    """The DAV:prop elements of a response's propstats with status 200: a property listed under
    a 404 propstat is absent, however it is spelled there."""
    for propstat in response.iter(f"{{{_DAV}}}propstat"):
        if " 200 " in (propstat.findtext(f"{{{_DAV}}}status") or ""):
            yield from propstat.iter(f"{{{_DAV}}}prop")


def _find(response: Element, path: str) -> Element | None:
    for prop in _found_props(response):
        found = prop.find(path)
        if found is not None:
            return found
    return None


def _href_prop(tree: Element | None, base: str, prop: str) -> str | None:
    """The absolute URL in property `prop` (a DAV:href child) of the first response, or None."""
    if tree is None:
        return None
    for response in tree.iter(f"{{{_DAV}}}response"):
        href = _find(response, f"{prop}/{{{_DAV}}}href")
        text = (href.text or "").strip() if href is not None else ""
        if text:
            return urljoin(base, text)
    return None


def parse_principal(tree: Element | None, base: str) -> str | None:
    """DAV:current-user-principal (RFC 5397) as an absolute URL, resolved against `base`."""
    return _href_prop(tree, base, f"{{{_DAV}}}current-user-principal")


def parse_home(tree: Element | None, base: str) -> str | None:
    """The first CALDAV:calendar-home-set href (RFC 4791 section 6.2.1), absolute."""
    return _href_prop(tree, base, f"{{{_CALDAV}}}calendar-home-set")


def parse_calendars(tree: Element | None, base: str) -> tuple[Calendar, ...]:
    """The calendar collections (resourcetype CALDAV:calendar) of a Depth 1 listing; the home
    itself, inboxes, outboxes and plain files are not calendars."""
    if tree is None:
        return ()
    found: list[Calendar] = []
    for response in tree.iter(f"{{{_DAV}}}response"):
        href = (response.findtext(f"{{{_DAV}}}href") or "").strip()
        if not href or _find(response, f"{{{_DAV}}}resourcetype/{{{_CALDAV}}}calendar") is None:
            continue
        url = urljoin(base, href)
        name = _text(_find(response, f"{{{_DAV}}}displayname"))
        color = _text(_find(response, f"{{{_APPLE}}}calendar-color"))
        components = _find(response, f"{{{_CALDAV}}}supported-calendar-component-set")
        events = components is None or any(
            (comp.get("name") or "").upper() == "VEVENT" for comp in components.iter(f"{{{_CALDAV}}}comp")
        )
        found.append(Calendar(url if url.endswith("/") else url + "/", name, color, events))
    return tuple(found)


def _text(element: Element | None) -> str | None:
    return ((element.text or "").strip() or None) if element is not None else None


def choose(calendars: tuple[Calendar, ...], name: str) -> Calendar:
    """The one calendar whose display name is `name`, else whose last path segment is; NoSuchCalendar
    (naming the calendars there are) when none or several match, or the one takes no events."""
    for matches in (
        [c for c in calendars if c.name == name],
        [c for c in calendars if c.url.rstrip("/").rsplit("/", 1)[-1] == name],
    ):
        if len(matches) == 1:
            if not matches[0].events:
                # The server would refuse every event with supported-calendar-component (RFC 4791 5.3.2.1).
                raise NoSuchCalendar(f"the calendar {name!r} ({public_url(matches[0].url)}) takes no events")
            return matches[0]
        if matches:
            urls = ", ".join(public_url(c.url) for c in matches)
            raise NoSuchCalendar(f"several calendars are named {name!r}: {urls}; give --calendar URL")
    names = ", ".join(repr(c.label) for c in calendars) or "none"
    raise NoSuchCalendar(f"no calendar named {name!r}; the account has: {names}")


# -- the requests --------------------------------------------------------------------------------


def discover(
    server: str,
    username: str | None,
    password: Password | None,
    *,
    allow_private: bool = False,
    timeout: float = 20.0,
    deadline: float | None = 120.0,
) -> Discovery:
    """The account's principal, calendar home and calendars, found from the server's URL (or an
    e-mail address: `target.server_address`)."""
    server = server_address(server)
    wire = DavStorage.open(server, username, password, allow_private=allow_private, timeout=timeout, deadline=deadline)
    try:
        principal = None
        for start in (urljoin(server, "/.well-known/caldav"), server):
            context, tree = _propfind(wire, start, _PRINCIPAL_BODY, "0")
            principal = parse_principal(tree, context)
            if principal is not None:
                break
        if principal is None:
            raise NoCalDAV(f"no CalDAV service found at {public_url(server)}")
        _refuse_downgrade(server, principal)
        where, tree = _propfind(wire, principal, _HOME_BODY, "0")
        named = parse_home(tree, where)
        home = named or _nextcloud_home(context, principal)
        _refuse_downgrade(server, home)
        where, tree = _propfind(wire, home, _CALENDARS_BODY, "1")
        if tree is None or (named is None and not _is_collection(tree)):
            raise NoCalendarHome(f"{public_url(principal)} names no calendar home")
        calendars = parse_calendars(tree, where)
        return Discovery(principal, home, calendars)
    finally:
        wire.close()


def _refuse_downgrade(server: str, url: str) -> None:
    """The server's answers may name another host (iCloud's homes are on p*-caldav.icloud.com), and
    the guard checks every connection's address; but a password that went over https never goes
    over plain http."""
    if urlsplit(server).scheme == "https" and urlsplit(url).scheme != "https":
        raise NoCalDAV(f"{public_url(server)} points to {public_url(url)}, which is not https")


def _nextcloud_home(context: str, principal: str) -> str:
    """sabre/dav's stock CalDAV plugin names a home only for a principal one level under
    principals/; a Nextcloud-shaped tree (principals/users/NAME) gets none, and its home is
    calendars/NAME/ under the DAV root the well-known URI led to. Checked by the listing after."""
    name = principal.rstrip("/").rsplit("/", 1)[-1]
    return urljoin(context if context.endswith("/") else context + "/", f"calendars/{name}/")


def _is_collection(tree: Element) -> bool:
    return any(
        _find(response, f"{{{_DAV}}}resourcetype/{{{_DAV}}}collection") is not None
        for response in tree.iter(f"{{{_DAV}}}response")
    )


def _propfind(wire: DavStorage, url: str, body: str, depth: str) -> tuple[str, Element | None]:
    """PROPFIND `url`, following same-origin redirects; the URL that answered and its multistatus
    (None for any other answer: not WebDAV there)."""
    origin = urlsplit(url)[:2]
    for _ in range(MAX_HOPS + 1):
        answer = wire._request("PROPFIND", url, body, {"Depth": depth, **_XML}, what=public_url(url))
        if answer.status in _REDIRECTS:
            target = urljoin(url, answer.headers.get("Location", ""))
            if urlsplit(target)[:2] != origin or target == url:
                return url, None
            url = target
            continue
        if answer.status != 207 or answer.tree is None:
            return url, None
        return url, answer.tree
    return url, None


def make_calendar(
    home: str,
    name: str,
    username: str | None,
    password: Password | None,
    *,
    allow_private: bool = False,
    timeout: float = 20.0,
    deadline: float | None = 60.0,
) -> Calendar:
    """A new calendar for events named `name` in the calendar home `home` (MKCALENDAR, RFC 4791
    section 5.3.1, through the library); CannotCreateCalendar with the server's status when it
    refuses (servers that allow no new calendars answer 403 or 405)."""
    _refuse_downgrade(home, home)
    wire = DavStorage.open(home, username, password, allow_private=allow_private, timeout=timeout, deadline=deadline)
    # A readable path segment, made unique: a second conference of the same name gets its own.
    slug = (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "conference") + "-" + uuid.uuid4().hex[:6]
    try:
        made = wire._wire(
            "MKCALENDAR",
            public_url(home),
            lambda: CalendarSet(wire.client, url=home).make_calendar(
                name=name, cal_id=slug, supported_calendar_component_set=["VEVENT"]
            ),
        )
    except dav_error.DAVError as exc:
        status = f"HTTP {exc.status}" if exc.status else "refused"
        raise CannotCreateCalendar(
            f"{public_url(home)} does not let confcal create a calendar ({status}); "
            "create one there yourself and choose it"
        ) from None
    finally:
        wire.close()
    # The sync client's make_calendar returns the calendar; only the async one a coroutine.
    url = str(cast(DavCalendar, made).url)
    return Calendar(url if url.endswith("/") else url + "/", name, None, True)
