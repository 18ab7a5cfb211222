"""The real Storage: one CalDAV calendar collection, spoken through `DAVClient`.

The client's HTTP session is `wire.GuardedSession`: every connection goes to an address the shared
outbound guard checked (http(s) only, no loopback, private, link-local, multicast or reserved
address unless `allow_private`), no environment proxy, one deadline for the run, answers read up
to a size cap. Redirects are not followed: a calendar URL that redirects is reported, never
chased with a body.

Credentials go as HTTP Basic on every request, the first one included (RFC 7617 section 2): the
client gets an auth object, so it never waits for a 401 challenge, which would cost a round trip
per run and meet Radicale's failed-login delay (about 1 s).

What the library does: the conditional writes (`save(raw_data=..., no_overwrite=True)` sends
If-None-Match: *, a save or `delete(if_match=...)` with the listed ETag sends If-Match; RFC 4791
section 5.3.2, RFC 7232 sections 3.1-3.2), recognising a UID refusal in any of its spellings
(no-uid-conflict, unique-scheduling-object-resource: its UidConflictError), 401/403/429 as typed
errors. What stays ours, each for a reason said where it is:
- PROPFIND Depth 0 on the URL: is it a calendar collection? (RFC 4791 section 4.2)
- PROPFIND Depth 1 for getetag: the listing, without reading anyone's event bodies
- REPORT calendar-query on UID before a create (RFC 4791 section 7.8, 9.7.5): some servers
  (DAViCal) do not enforce the no-uid-conflict precondition, so we do not rely on it
- GET of the exact bytes stored
- PROPFIND Depth 0 for the displayname of the calendar that holds a UID, when a create is refused
  with unique-scheduling-object-resource (Cyrus: one UID per account), to name it in the report
Status codes become the contract's errors; 5xx, 429 and broken connections become
TransientError so the executor can retry them.

Some servers ignore the preconditions: SOGo 5.8 overwrites on a PUT with If-None-Match: * and
deletes on a DELETE whose If-Match no longer matches. Where the server is known to (its answers
name SOPE, SOGo's web framework) or found to (`check_preconditions`, a harmless test on a scratch
object), `checks_writes` is set and every create, update and delete first reads the object and
refuses itself (PreconditionFailed) when it is not what the precondition expects, so the
executor's conflict handling applies as on any other server. The read and the write are two
requests: an edit landing between them is still lost on such a server, but only in that window.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from urllib.parse import quote, unquote, urljoin, urlsplit
from xml.etree.ElementTree import Element

import niquests
from caldav.calendarobjectresource import Event
from caldav.collection import Calendar
from caldav.davclient import DAVClient
from caldav.elements.dav import GetEtag
from caldav.lib import error as dav_error
from caldav.lib.python_utilities import WireBytes
from defusedxml import ElementTree as SafeXml

from feeds.errors import AddressRefused, DeadlineExceeded, FetchError, LimitExceeded
from feeds.outbound import Policy
from feeds.outbound.urls import public_url
from server.caldav.content import uids
from server.caldav.errors import (
    AccessDenied,
    AddressNotAllowed,
    AuthenticationFailed,
    BadCalendarUrl,
    CalDAVError,
    CalendarNotFound,
    ItemNotFound,
    NotACalendar,
    PreconditionFailed,
    ServerFailed,
    ServerUnreachable,
    TransientError,
    UidConflict,
)
from server.caldav.storage import Item
from server.caldav.wire import GuardedSession
from server.crypto import Password

_DAV = "DAV:"
_CALDAV = "urn:ietf:params:xml:ns:caldav"
_RESOURCETYPE_BODY = (
    '<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/></d:prop></d:propfind>'
)
_DISPLAYNAME_BODY = (
    '<?xml version="1.0" encoding="utf-8"?><d:propfind xmlns:d="DAV:"><d:prop><d:displayname/></d:prop></d:propfind>'
)
_LISTING_BODY = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:resourcetype/></d:prop></d:propfind>'
)
# Header names in any letter case are the same header (RFC 9110 section 5.1): niquests sends them
# as given, servers and the answer headers match them case-blind.
_XML = {"Content-Type": "application/xml; charset=utf-8"}
# A listing of a few thousand events is well under a megabyte; a server sending more is broken.
MAX_ANSWER = 20 * 1024 * 1024


def _uid_query(uid: str) -> bytes:
    """calendar-query for VEVENTs whose UID contains `uid` (text-match is a substring match,
    RFC 4791 section 9.7.5, so the caller checks the hits' UIDs exactly)."""
    # ">" needs no escape in character data (XML 1.0 section 2.4, but for "]]>"); escaped anyway.
    text = uid.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">'
        # Stray text between these elements is ignored by an XML reader, and iCalendar names
        # (VCALENDAR, VEVENT, UID) are case-insensitive (RFC 5545 section 2).
        "<d:prop><d:getetag/><c:calendar-data/></d:prop>"
        '<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">'
        f'<c:prop-filter name="UID"><c:text-match collation="i;octet">{text}</c:text-match>'
        "</c:prop-filter></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>"
    ).encode()


T = TypeVar("T")
# The library is told it need not search for a UID before a create: create() has already asked,
# with a lookup that finds every holder exactly (holders), and a second search would only cost.
_FEATURES = {"save.no-uid-conflict": {"support": "full"}}


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: Mapping[str, str]
    body: bytes
    tree: Element | None


def check_url(url: str) -> str:
    """`url` if it can name a calendar: http(s), a host, no password; else BadCalendarUrl."""
    parts = urlsplit(url)
    if parts.password is not None:
        # A password on the command line leaks into shell history and `ps`; refuse it.
        raise BadCalendarUrl("the calendar URL carries a password; use --password-env or --password-file")
    # urlsplit already lowers the scheme; .lower() only says that the test is case-blind.
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise BadCalendarUrl(f"{public_url(url)} is not an http(s) URL")
    return url


def calendar_key(url: str) -> str:
    """The calendar's name in the store (sync state, lease): its URL without userinfo, with the
    trailing slash a collection URL has (RFC 4918 section 5.2)."""
    return public_url(url if url.endswith("/") else url + "/")


class DavStorage:
    """A calendar collection. Use `DavStorage.connect`, which checks the URL first."""

    def __init__(self, client: DAVClient, session: GuardedSession, url: str) -> None:
        self.client = client
        self.session = session
        self.url = calendar_key(url)
        self._path = urlsplit(self.url).path
        self.calendar = Calendar(client=client, url=self.url)
        # True when the server ignores If-None-Match / If-Match (see the module's docstring).
        self.checks_writes = False

    @classmethod
    def connect(
        cls,
        url: str,
        username: str | None,
        password: Password | None,
        *,
        allow_private: bool = False,
        # Its one caller (service._connect) passes SyncOptions' values, which have the same defaults.
        timeout: float = 20.0,
        deadline: float | None = 600.0,
    ) -> DavStorage:
        storage = cls.open(url, username, password, allow_private=allow_private, timeout=timeout, deadline=deadline)
        try:
            storage.check_calendar()
        except BaseException:
            storage.close()
            raise
        return storage

    @classmethod
    def open(
        cls,
        url: str,
        username: str | None,
        password: Password | None,
        *,
        allow_private: bool = False,
        timeout: float = 20.0,
        deadline: float | None = 600.0,
    ) -> DavStorage:
        """A client for `url` through the outbound guard, nothing asked yet (discovery starts from
        a server's URL, which is no calendar)."""
        parts = urlsplit(check_url(url))
        if username is None and parts.username:
            username = unquote(parts.username)
        # Without a user name or a password a server that wants one answers 401 whether we send
        # none, empty ones or made-up ones (AuthenticationFailed all the same); with both, both go.
        auth = None
        if username is not None or password is not None:
            auth = niquests.auth.HTTPBasicAuth(username or "", password.reveal() if password else "")
        policy = Policy(allow_private=allow_private, timeout=timeout)
        session = GuardedSession(policy, deadline=deadline, max_bytes=MAX_ANSWER)
        # enable_rfc6764=False: the library's DNS and well-known lookups would run on a session of
        # its own, outside the guard; discovery.py does them through this client instead.
        client = DAVClient(
            url=public_url(url), auth=auth, timeout=int(timeout), enable_rfc6764=False, features=_FEATURES
        )
        client.session.close()
        client.session = session
        return cls(client, session, url)

    def close(self) -> None:
        self.client.close()

    def check_calendar(self) -> None:
        answer = self._request("PROPFIND", self.url, _RESOURCETYPE_BODY, {"Depth": "0", **_XML}, what="calendar")
        status, tree = answer.status, answer.tree
        if status == 404 or (tree is not None and _status_404(tree)):
            raise CalendarNotFound(f"no calendar at {self.url} (404)")
        if status != 207 or tree is None:
            raise NotACalendar(f"{self.url} did not answer PROPFIND as a WebDAV collection (HTTP {status})")
        if tree.find(f".//{{{_DAV}}}resourcetype/{{{_CALDAV}}}calendar") is None:
            raise NotACalendar(f"{self.url} is not a calendar collection (find the calendar's own URL)")
        if _ignores_preconditions(answer.headers):
            self.checks_writes = True

    def check_preconditions(self) -> bool:
        """Find out whether the server honours If-None-Match: * on PUT and If-Match on DELETE, on a
        scratch object of our own that is deleted again; True if it ignores either (and from then
        on `checks_writes`). A server that refuses the scratch write is left as it was."""
        name = f"confcal-check-{uuid.uuid4().hex}.ics"
        ics = _scratch_event(name.removesuffix(".ics"))
        headers = {"Content-Type": "text/calendar; charset=utf-8", "If-None-Match": "*"}
        if self._request("PUT", self._url(name), ics, headers, what=name).status not in (200, 201, 204):
            return self.checks_writes
        try:
            again = self._request("PUT", self._url(name), ics, headers, what=name).status
            # A wrong ETag: a server that honours If-Match answers 412 and keeps the object.
            wrong = {"If-Match": '"confcal-no-such-etag"'}
            gone = self._request("DELETE", self._url(name), "", wrong, what=name).status
        finally:
            if self._exists(name):
                self._request("DELETE", self._url(name), "", {}, what=name)
        if again in (200, 201, 204) or gone in (200, 204):
            self.checks_writes = True
        return self.checks_writes

    # -- the Storage contract ------------------------------------------------------------------

    def list(self) -> dict[str, str]:
        answer = self._request("PROPFIND", self.url, _LISTING_BODY, {"Depth": "1", **_XML}, what="calendar")
        tree = answer.tree
        if answer.status != 207 or tree is None:
            raise ServerFailed(f"listing {self.url} failed (HTTP {answer.status})")
        out: dict[str, str] = {}
        # Only DAV:response elements have a DAV:href child in this answer, so iterating over every
        # element finds the same names; a missing href ("" or any relative text) names nothing.
        for response in tree.iter(f"{{{_DAV}}}response"):
            name = self._name_of(response.findtext(f"{{{_DAV}}}href") or "")
            etag = response.findtext(f".//{{{_DAV}}}getetag")
            is_collection = response.find(f".//{{{_DAV}}}resourcetype/{{{_DAV}}}collection") is not None
            if name and etag and not is_collection:
                out[name] = etag
        return out

    def get(self, name: str) -> Item:
        # The Accept only states what a calendar object resource is anyway (RFC 4791 section
        # 4.1): without it, or with another letter case, servers answer the same.
        answer = self._request("GET", self._url(name), "", {"Accept": "text/calendar"}, what=name)
        if answer.status == 404:
            raise ItemNotFound(f"{name}: not found")
        if answer.status != 200:
            raise ServerFailed(f"GET {name} failed (HTTP {answer.status})")
        etag = answer.headers.get("ETag") or self._etag(name)
        return Item(ics=answer.body, etag=etag)

    def create(self, name: str, ics: bytes) -> str:
        for uid in sorted(uids(ics)):
            if any(holder != name for holder in self.holders(uid)):
                raise UidConflict(f"{name}: the calendar already has an event with this UID")
        if self.checks_writes and self._exists(name):
            raise PreconditionFailed(f"{name}: already exists (checked before writing)")
        event = self._event(name)
        self._write(name, lambda: event.save(raw_data=ics, no_overwrite=True))
        return self._etag_after(name, event)

    def update(self, name: str, ics: bytes, etag: str) -> str:
        if self.checks_writes:
            self._expect(name, etag)
        event = self._event(name, etag)
        try:
            # precondition="etag": a sync client wants a 412 for any change since it listed the
            # object, not a Schedule-Tag merge (RFC 6638 section 3.2.10).
            self._write(name, lambda: event.save(raw_data=ics, precondition="etag"))
            return self._etag_after(name, event)
        except PreconditionFailed:
            # If-Match also fails when nothing is there (RFC 7232 section 3.1): Radicale and
            # Xandikos answer 412 for a deleted resource. The contract tells the two apart.
            if not self._exists(name):
                raise ItemNotFound(f"{name}: not found") from None
            raise

    def delete(self, name: str, etag: str) -> None:
        if self.checks_writes:
            self._expect(name, etag)
        event = self._event(name)
        self._write(name, lambda: event.delete(if_match=etag), "DELETE")

    def holders(self, uid: str) -> builtins.list[str]:
        """The names of the calendar's objects whose VEVENT has exactly this UID."""
        answer = self._request("REPORT", self.url, _uid_query(uid), {"Depth": "1", **_XML}, what=uid)
        tree = answer.tree
        if answer.status != 207 or tree is None:
            raise ServerFailed(f"searching {self.url} for a UID failed (HTTP {answer.status})")
        found: builtins.list[str] = []
        # As in list(): only DAV:response elements hold a DAV:href child here.
        for response in tree.iter(f"{{{_DAV}}}response"):
            name = self._name_of(response.findtext(f"{{{_DAV}}}href") or "")
            data = response.findtext(f".//{{{_CALDAV}}}calendar-data") or ""
            if name and uid in uids(data.encode()):
                found.append(name)
        return found

    # -- internals ---------------------------------------------------------------------------------

    def _expect(self, name: str, etag: str) -> None:
        """The If-Match a server that ignores it does not check: the object must still carry
        `etag`. ItemNotFound when it is gone, PreconditionFailed when it changed."""
        if self.get(name).etag != etag:
            raise PreconditionFailed(f"{name}: changed since it was listed (checked before writing)")

    def _event(self, name: str, etag: str | None = None) -> Event:
        props = {GetEtag.tag: etag} if etag else None
        return Event(self.client, url=self._url(name), parent=self.calendar, props=props)

    def _etag_after(self, name: str, event: Event) -> str:
        # A server that altered the body must not return a strong ETag (RFC 4791 section 5.3.4);
        # then we ask for the stored one.
        etag = event.etag
        if not etag or etag.startswith("W/"):
            etag = self._etag(name)
        return str(etag)

    def _write(self, name: str, write: Callable[[], object], method: str = "PUT") -> None:
        """Run one of the library's writes; its refusals become the contract's errors."""
        if self.checks_writes:
            # As in _request: one connection per request on SOGo.
            self.client.headers["Connection"] = "close"
        try:
            self._wire(method, name, write)
        except dav_error.DAVError as exc:
            body = exc.body.encode() if isinstance(exc.body, str) else (exc.body or b"")
            status = exc.status or (412 if isinstance(exc, dav_error.ConsistencyError) else 0)
            if status == 429 or status >= 500:
                raise TransientError(
                    f"{method} {name}: server error (HTTP {status})",
                    retry_after=_seconds(self.session.last.headers.get("Retry-After", "")),
                ) from None
            self._check_write(name, _Answer(status, {}, body, _xml(body)))

    def _check_write(self, name: str, answer: _Answer) -> None:
        status = answer.status
        if status in (200, 201, 204):
            return
        # Servers differ on the status for a taken UID (Radicale 409, Xandikos 412); the body says.
        if status in (403, 409, 412) and _uid_conflict(answer.body):
            raise UidConflict(f"{name}: the calendar already has an event with this UID")
        # Cyrus holds a UID once per account: a second object with it, in any of the account's
        # calendars, is refused with the holder's href (RFC 6638 section 3.2.4.1).
        holder = _unique_holder(answer.body) if status in (403, 409, 412) else None
        if holder == "":
            raise UidConflict(f"{name}: the account already has an event with this UID")
        if holder is not None:
            where = self._calendar_name(holder)
            raise UidConflict(
                f"{name}: the account already has an event with this UID at {holder}", holder=holder, calendar=where
            )
        if status == 403:
            raise AccessDenied(f"access to {self.url} denied (403): the account may not use this calendar")
        if status == 412:
            raise PreconditionFailed(f"{name}: precondition failed (412)")
        if status == 404:
            raise ItemNotFound(f"{name}: not found (404)")
        raise ServerFailed(f"{name}: the server refused the write (HTTP {status})")

    def _calendar_name(self, holder: str) -> str | None:
        """The display name of the calendar holding `holder` (an href), or None when it cannot be
        read: it only words a message, so no failure of this lookup may stop the run."""
        collection = urljoin(self.url, holder).rsplit("/", 1)[0] + "/"
        if urlsplit(collection)[:2] != urlsplit(self.url)[:2]:
            return None  # our credentials go to the calendar's own origin only
        try:
            answer = self._request("PROPFIND", collection, _DISPLAYNAME_BODY, {"Depth": "0", **_XML}, what=holder)
        except CalDAVError:
            return None
        tree = answer.tree
        if answer.status != 207 or tree is None:
            return None
        return (tree.findtext(f".//{{{_DAV}}}displayname") or "").strip() or None

    def _etag(self, name: str) -> str:
        # Depth makes no difference on one calendar object resource (see _exists).
        answer = self._request("PROPFIND", self._url(name), _LISTING_BODY, {"Depth": "0", **_XML}, what=name)
        tree = answer.tree
        etag = tree.findtext(f".//{{{_DAV}}}getetag") if tree is not None else None
        if answer.status == 404:
            raise ItemNotFound(f"{name}: not found")
        if not etag:
            raise ServerFailed(f"{name}: the server gives no ETag; it cannot be synced safely")
        return str(etag)

    def _exists(self, name: str) -> bool:
        # Depth and the property asked for make no difference on a calendar object resource,
        # which has no members (RFC 4918 section 9.1): only its 404 (or not) is read.
        answer = self._request("PROPFIND", self._url(name), _LISTING_BODY, {"Depth": "0", **_XML}, what=name)
        tree = answer.tree
        return answer.status != 404 and not (tree is not None and _status_404(tree))

    def _url(self, name: str) -> str:
        # No name has a "/" (name_for's names have none, _name_of gives none), so the "/" that
        # quote leaves by default would be the same; safe="" says it cannot end up in the path.
        return self.url + quote(name, safe="")

    def _name_of(self, href: str) -> str:
        path = unquote(urlsplit(href).path)
        base = unquote(self._path)
        if not path.startswith(base):
            return ""
        rest = path[len(base) :]
        # A member is one path segment: a deeper path, or a member collection's trailing slash,
        # names nothing (the callers also skip collections by what they hold).
        return "" if not rest or "/" in rest else rest

    def _wire(self, method: str, what: str, call: Callable[[], T]) -> T:
        """Run `call` (one request through the client); map what is never about the item: 401,
        403 on a read, the address guard, rate limits, the deadline, broken connections. A 403 to
        a write is the write's business (it may be a UID refusal) and passes through."""
        try:
            try:
                return call()
            except (niquests.exceptions.ConnectionError, niquests.exceptions.ChunkedEncodingError):
                # A server may close a kept-alive connection just as a request goes out on it
                # (SOGo does); a read that changes nothing is sent once more on a new connection,
                # as HTTP clients do (RFC 9110 section 9.2.2). Writes are left to the executor,
                # which knows whether a lost answer's write took effect.
                if method not in _SAFE:
                    raise
                return call()
        except dav_error.RateLimitError as exc:
            raise TransientError(
                f"{method} {what}: server error (HTTP {exc.status or 429})",
                retry_after=_seconds(exc.retry_after or ""),
            ) from None
        except dav_error.AuthorizationError as exc:
            if exc.status == 403 and method not in _SAFE:
                raise
            if exc.status == 403:
                raise AccessDenied(
                    f"access to {self.url} denied (403): the account may not use this calendar"
                ) from None
            raise AuthenticationFailed(f"cannot log in to {self.url} (401): wrong user name or password?") from None
        except AddressRefused as exc:
            raise AddressNotAllowed(f"{self.url}: {exc}") from None
        except DeadlineExceeded as exc:
            raise ServerUnreachable(f"cannot reach {self.url}: {exc}") from None
        except LimitExceeded as exc:
            raise ServerFailed(f"{method} {what}: the answer {exc}") from None
        except FetchError as exc:  # the name does not resolve
            raise TransientError(f"cannot reach {self.url}: {exc}", unreachable=True) from None
        except niquests.exceptions.RequestException as exc:
            raise TransientError(f"cannot reach {self.url}: {_reason(exc)}", unreachable=True) from None

    def _request(
        self,
        method: str,
        url: str,
        body: str | bytes,
        headers: dict[str, str],
        *,
        what: str,
    ) -> _Answer:
        """Send one request through the client; return its status, headers, body (read up to
        MAX_ANSWER) and XML. Failures that are never about the item are mapped by _wire."""
        # A body on GET or DELETE has no meaning (RFC 9110 sections 9.3.1, 9.3.5): callers send none.
        # WireBytes: the client would otherwise rewrite line ends, and these bytes are exact.
        content = WireBytes(body.encode() if isinstance(body, str) else body)
        if self.checks_writes:
            # SOGo closes kept-alive connections at will, and a write sent on one that is closing
            # is lost without an answer: one connection per request there.
            headers = {**headers, "Connection": "close"}

        def call() -> None:
            try:
                # The library's annotation says str; its to_wire takes bytes, WireBytes unchanged.
                self.client.request(url, method, cast(str, content), headers)
            except SyntaxError:  # lxml's XMLSyntaxError is one
                pass  # the library's own parse of a broken XML body; ours below says what it was

        self._wire(method, what, call)
        # The session kept the answer as read off the wire: the library's copy has its line
        # ends rewritten.
        response = self.session.last
        status = response.status_code or 0
        if status == 429 or status >= 500:
            raise TransientError(
                f"{method} {what}: server error (HTTP {status})",
                retry_after=_seconds(response.headers.get("Retry-After", "")),
            )
        body_read = self.session.last_body
        return _Answer(status, response.headers, body_read, _xml(body_read))


_SAFE = frozenset({"GET", "HEAD", "OPTIONS", "PROPFIND", "REPORT"})


def _ignores_preconditions(headers: Mapping[str, str]) -> bool:
    """SOGo's answers name SOPE, its web framework ("Server: SOPE 4.9/WebDAV"; its own
    X-Dav-Error header survives a proxy that rewrites Server): SOGo ignores If-None-Match: * on PUT
    and If-Match on DELETE."""
    return "sope" in headers.get("Server", "").lower() or "X-Dav-Error" in headers


def _scratch_event(uid: str) -> bytes:
    """A one-minute event in 1970 with a UID of its own: what check_preconditions writes."""
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//confcal//precondition check//EN\r\n"
        f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:19700101T000000Z\r\n"
        "DTSTART:19700101T000000Z\r\nDTEND:19700101T000100Z\r\nSUMMARY:confcal check\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    ).encode()


def _reason(exc: niquests.exceptions.RequestException) -> str:
    if isinstance(exc, niquests.exceptions.Timeout):
        return "timed out"
    if isinstance(exc, niquests.exceptions.ConnectionError) and "closed" in str(exc).lower():
        return "the connection closed without an answer"
    if isinstance(exc, niquests.exceptions.ConnectionError):
        return "connection failed"
    return "the connection broke"


def _seconds(value: str) -> float | None:
    # Only whole seconds are read: any default that is not digits ("" or other) gives None.
    return float(value) if value.isdigit() else None


def _xml(body: bytes) -> Element | None:
    if not body.lstrip().startswith(b"<"):
        return None
    try:
        tree: Element = SafeXml.fromstring(body)
    except (SafeXml.ParseError, ValueError):
        return None
    return tree


def _uid_conflict(body: bytes) -> bool:
    """RFC 4791 section 5.3.2.1: a DAV:error body with CALDAV:no-uid-conflict."""
    try:
        tree = SafeXml.fromstring(body)
    except (SafeXml.ParseError, ValueError):
        return False
    return tree.find(f".//{{{_CALDAV}}}no-uid-conflict") is not None or (tree.tag == f"{{{_CALDAV}}}no-uid-conflict")


def _unique_holder(body: bytes) -> str | None:
    """The href in a CALDAV:unique-scheduling-object-resource precondition (RFC 6638 section
    3.2.4.1), the resource that already holds the UID: "" when the precondition names no href,
    None when the body is not that precondition."""
    try:
        tree = SafeXml.fromstring(body)
    except (SafeXml.ParseError, ValueError):
        return None
    tag = f"{{{_CALDAV}}}unique-scheduling-object-resource"
    found = tree if tree.tag == tag else tree.find(f".//{tag}")
    if found is None:
        return None
    return (found.findtext(f"{{{_DAV}}}href") or "").strip()


def _status_404(tree: Any) -> bool:
    """Some servers (Xandikos) answer PROPFIND on a missing URL with 207 and a 404 inside."""
    status = tree.findtext(f"{{{_DAV}}}response/{{{_DAV}}}status") or ""
    # "HTTP/1.1 404 Not Found": the spaces only guard against a reason phrase holding "404". No
    # status reads as "" (any default without " 404 " would do).
    return " 404 " in status
