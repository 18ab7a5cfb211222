"""The bodies of `POST api/picks/{token}/caldav` (`{"url", "username", "password"}`, and
`"new_calendar"` to make one) and of `POST api/picks/{token}/caldav/calendars` (`{"server",
"username", "password"}`, discovery), checked.

Bounded like every body (server.web.bodies: JSON only, size cap before reading), then: exactly
those three keys, strings of sane length without control characters, and an http(s) URL without
userinfo (the password has its own field; a URL is shown back and logged, a password never).
Messages never repeat a value, since one of them is a password.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

from feeds.outbound.urls import is_http, public_url
from server.caldav.target import server_address
from server.crypto import Password
from server.web.bodies import BodyError, parse_json

MAX_CALDAV_BODY = 8 * 1024
MAX_URL = 2000
MAX_USERNAME = 320  # an e-mail address at most, which is what providers use
MAX_PASSWORD = 1024
FIELDS = ("url", "username", "password")


MAX_CALENDAR_NAME = 200


@dataclass(frozen=True)
class WantedCalendar:
    """A calendar to attach. `url` is normalised: no userinfo, lower-case host, ends in "/".
    With `new_calendar`, `url` is the account's calendar home (from discovery), where a calendar
    of that name is made first."""

    url: str
    username: str
    password: Password
    new_calendar: str | None = None


@dataclass(frozen=True)
class WantedAccount:
    """An account whose calendars to list: `server` is an http(s) URL (an e-mail address given is
    turned into its domain's https root, where the well-known URI is asked)."""

    server: str
    username: str
    password: Password


def caldav_body(body: bytes) -> WantedCalendar:
    """400 for what is not JSON, 422 for the wrong shape or an unusable URL."""
    document = parse_json(body)
    if not isinstance(document, dict):
        raise BodyError('expected a JSON object {"url", "username", "password"}', 422)
    unknown = sorted(set(document) - set(FIELDS) - {"new_calendar"})
    if unknown:
        raise BodyError(f"unexpected field {unknown[0][:40]!r}; send url, username and password", 422)
    url = _text(document, "url", MAX_URL)
    username = _text(document, "username", MAX_USERNAME)
    password = _text(document, "password", MAX_PASSWORD)
    new = _text(document, "new_calendar", MAX_CALENDAR_NAME) if "new_calendar" in document else None
    return WantedCalendar(_calendar_url(url), username, Password(password), new)


def discovery_body(body: bytes) -> WantedAccount:
    """`{"server", "username", "password"}`: 400 for what is not JSON, 422 for the wrong shape,
    a server that is neither an http(s) URL nor an e-mail address."""
    document = parse_json(body)
    if not isinstance(document, dict):
        raise BodyError('expected a JSON object {"server", "username", "password"}', 422)
    unknown = sorted(set(document) - {"server", "username", "password"})
    if unknown:
        raise BodyError(f"unexpected field {unknown[0][:40]!r}; send server, username and password", 422)
    server = _text(document, "server", MAX_URL)
    username = _text(document, "username", MAX_USERNAME)
    password = _text(document, "password", MAX_PASSWORD)
    server = server_address(server)
    if not is_http(server):
        raise BodyError("the server must be an https:// address or your e-mail address", 422)
    return WantedAccount(_calendar_url(server), username, Password(password))


def _text(document: dict[str, object], name: str, limit: int) -> str:
    value = document.get(name)
    if not isinstance(value, str) or not value.strip():
        raise BodyError(f'"{name}" is required (a non-empty string)', 422)
    if len(value) > limit:
        raise BodyError(f'"{name}" is longer than {limit} characters', 422)
    if any(unicodedata.category(c) == "Cc" for c in value):
        raise BodyError(f'"{name}" contains control characters', 422)
    return value if name == "password" else value.strip()


def _calendar_url(url: str) -> str:
    if not is_http(url):
        raise BodyError("the calendar URL must start with https:// (or http://)", 422)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise BodyError("the calendar URL is not a valid URL", 422) from None
    if not parts.hostname:
        raise BodyError("the calendar URL names no host", 422)
    if "@" in parts.netloc:
        raise BodyError("put the user name and password in their own fields, not in the calendar URL", 422)
    normal = public_url(url)
    return normal if normal.endswith("/") else normal + "/"
