"""The real Storage: one CalDAV calendar collection, over the `caldav` library's DAVClient.

The library's high-level objects hide the HTTP preconditions we depend on, so the pusher uses
its authenticated `DAVClient.request` and speaks the few requests itself:
- PROPFIND Depth 0 on the URL: is it a calendar collection? (RFC 4791 section 4.2)
- PROPFIND Depth 1 for getetag: the listing, without reading anyone's event bodies
- GET / PUT with If-None-Match: * or If-Match / DELETE with If-Match (RFC 4791 section 5.3.2,
  RFC 7232 section 3.1-3.2)
Status codes become the contract's errors; 5xx, 429 and broken connections become
TransientError so the executor can retry them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from caldav.davclient import DAVClient
from caldav.lib import error as dav_error
from caldav.lib.http_sync import requests as http

from server.caldav.errors import (
    AccessDenied,
    AuthenticationFailed,
    CalDAVError,
    CalendarNotFound,
    ItemNotFound,
    NotACalendar,
    PreconditionFailed,
    ServerFailed,
    TransientError,
    UidConflict,
)
from server.caldav.storage import Item

_DAV = "DAV:"
_CALDAV = "urn:ietf:params:xml:ns:caldav"
_RESOURCETYPE_BODY = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/></d:prop></d:propfind>'
)
_LISTING_BODY = (
    '<?xml version="1.0" encoding="utf-8"?>'
    '<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:resourcetype/></d:prop></d:propfind>'
)


def public_url(url: str) -> str:
    """The URL without userinfo: what may appear in messages and in the sync-state key."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, ""))


class DavStorage:
    """A calendar collection. Use `DavStorage.connect`, which checks the URL first."""

    def __init__(self, client: Any, url: str) -> None:
        self.client = client
        self.url = public_url(url if url.endswith("/") else url + "/")
        self._path = urlsplit(self.url).path

    @classmethod
    def connect(
        cls, url: str, username: str | None, password: str | None, *, timeout: int = 30
    ) -> DavStorage:
        parts = urlsplit(url)
        if parts.password is not None:
            # A password on the command line leaks into shell history and `ps`; refuse it.
            raise CalDAVError(
                "the calendar URL carries a password; use --password-env or --password-file"
            )
        username = (
            username
            if username is not None
            else (unquote(parts.username) if parts.username else None)
        )
        # RFC 6764 discovery off: we were given the collection URL, so no DNS lookups.
        client = DAVClient(
            url=public_url(url),
            username=username,
            password=password,
            timeout=timeout,
            enable_rfc6764=False,
        )
        storage = cls(client, url)
        try:
            storage.check_calendar()
        except BaseException:
            client.close()
            raise
        return storage

    def close(self) -> None:
        self.client.close()

    def check_calendar(self) -> None:
        status, tree, _ = self._request(
            "PROPFIND", self.url, _RESOURCETYPE_BODY, {"Depth": "0"}, what="calendar"
        )
        if status == 404 or (tree is not None and _status_404(tree)):
            raise CalendarNotFound(f"no calendar at {self.url} (404)")
        if status != 207 or tree is None:
            raise NotACalendar(
                f"{self.url} did not answer PROPFIND as a WebDAV collection (HTTP {status})"
            )
        if tree.find(f".//{{{_DAV}}}resourcetype/{{{_CALDAV}}}calendar") is None:
            raise NotACalendar(
                f"{self.url} is not a calendar collection (find the calendar's own URL)"
            )

    # -- the Storage contract ------------------------------------------------------------------

    def list(self) -> dict[str, str]:
        status, tree, _ = self._request(
            "PROPFIND", self.url, _LISTING_BODY, {"Depth": "1"}, what="calendar"
        )
        if status != 207 or tree is None:
            raise ServerFailed(f"listing {self.url} failed (HTTP {status})")
        out: dict[str, str] = {}
        for response in tree.iter(f"{{{_DAV}}}response"):
            href = response.findtext(f"{{{_DAV}}}href") or ""
            name = self._name_of(href)
            etag = response.findtext(f".//{{{_DAV}}}getetag")
            is_collection = (
                response.find(f".//{{{_DAV}}}resourcetype/{{{_DAV}}}collection")
                is not None
            )
            if name and etag and not is_collection:
                out[name] = etag
        return out

    def get(self, name: str) -> Item:
        status, _, response = self._request(
            "GET", self._url(name), "", {"Accept": "text/calendar"}, what=name
        )
        if status == 404:
            raise ItemNotFound(f"{name}: not found")
        if status != 200:
            raise ServerFailed(f"GET {name} failed (HTTP {status})")
        etag = response.headers.get("ETag") or self._etag(name)
        return Item(ics=bytes(response._raw_body or response._raw), etag=etag)

    def create(self, name: str, ics: bytes) -> str:
        return self._put(name, ics, {"If-None-Match": "*"})

    def update(self, name: str, ics: bytes, etag: str) -> str:
        try:
            return self._put(name, ics, {"If-Match": etag})
        except PreconditionFailed:
            # If-Match also fails when nothing is there (RFC 7232 section 3.1): Radicale and
            # Xandikos answer 412 for a deleted resource. The contract tells the two apart.
            if not self._exists(name):
                raise ItemNotFound(f"{name}: not found") from None
            raise

    def delete(self, name: str, etag: str) -> None:
        status, _, response = self._request(
            "DELETE", self._url(name), "", {"If-Match": etag}, what=name
        )
        self._check_write(name, status, response)

    # -- internals ---------------------------------------------------------------------------------

    def _put(self, name: str, ics: bytes, precondition: dict[str, str]) -> str:
        headers = {"Content-Type": "text/calendar; charset=utf-8", **precondition}
        status, _, response = self._request(
            "PUT", self._url(name), ics, headers, what=name
        )
        self._check_write(name, status, response)
        # A server that altered the body must not return a strong ETag (RFC 4791 section 5.3.4);
        # then we ask for the stored one.
        etag = response.headers.get("ETag")
        if not etag or etag.startswith("W/"):
            etag = self._etag(name)
        return str(etag)

    def _check_write(self, name: str, status: int, response: Any) -> None:
        if status in (200, 201, 204):
            return
        # Servers differ on the status for a taken UID (Radicale 409, Xandikos 412); the body says.
        if status in (403, 409, 412) and _uid_conflict(response):
            raise UidConflict(
                f"{name}: the calendar already has an event with this UID"
            )
        if status == 412:
            raise PreconditionFailed(f"{name}: precondition failed (412)")
        if status == 404:
            raise ItemNotFound(f"{name}: not found (404)")
        raise ServerFailed(f"{name}: the server refused the write (HTTP {status})")

    def _etag(self, name: str) -> str:
        body = _LISTING_BODY
        status, tree, _ = self._request(
            "PROPFIND", self._url(name), body, {"Depth": "0"}, what=name
        )
        etag = tree.findtext(f".//{{{_DAV}}}getetag") if tree is not None else None
        etag = str(etag) if etag else None
        if status == 404:
            raise ItemNotFound(f"{name}: not found")
        if not etag:
            raise ServerFailed(
                f"{name}: the server gives no ETag; it cannot be synced safely"
            )
        return etag

    def _exists(self, name: str) -> bool:
        status, tree, _ = self._request(
            "PROPFIND", self._url(name), _LISTING_BODY, {"Depth": "0"}, what=name
        )
        return status != 404 and not (tree is not None and _status_404(tree))

    def _url(self, name: str) -> str:
        return self.url + quote(name, safe="")

    def _name_of(self, href: str) -> str:
        path = unquote(urlsplit(href).path)
        base = unquote(self._path)
        if not path.startswith(base):
            return ""
        rest = path[len(base) :]
        return "" if not rest or "/" in rest.rstrip("/") or rest.endswith("/") else rest

    def _request(
        self,
        method: str,
        url: str,
        body: str | bytes,
        headers: dict[str, str],
        *,
        what: str,
    ) -> tuple[int, Any, Any]:
        """Send one request; return (status, parsed XML or None, response). Maps failures that
        are never about the item: auth (401/403), rate limits, 5xx, connection errors."""
        try:
            response = self.client.request(url, method, body, headers)
        except dav_error.RateLimitError as exc:
            raise TransientError(
                f"{method} {what}: the server asks to slow down",
                retry_after=exc.retry_after_seconds,
            ) from None
        except dav_error.AuthorizationError as exc:
            if exc.status == 403 and _uid_conflict_body(exc.body):
                raise UidConflict(
                    f"{what}: the calendar already has an event with this UID"
                ) from None
            if exc.status == 403:
                raise AccessDenied(
                    f"access to {self.url} denied (403): the account may not use this calendar"
                ) from None
            raise AuthenticationFailed(
                f"cannot log in to {self.url} (401): wrong user name or password?"
            ) from None
        except (http.exceptions.ConnectionError, http.exceptions.Timeout) as exc:
            raise TransientError(
                f"cannot reach {self.url}: {type(exc).__name__}", unreachable=True
            ) from None
        except dav_error.DAVError as exc:
            raise CalDAVError(f"{method} {what}: {type(exc).__name__}") from None
        status = int(response.status)
        if status >= 500 or status == 429:
            raise TransientError(f"{method} {what}: server error (HTTP {status})")
        return status, getattr(response, "tree", None), response


def _uid_conflict(response: Any) -> bool:
    return _uid_conflict_body(getattr(response, "_raw", None))


def _uid_conflict_body(body: bytes | str | None) -> bool:
    """RFC 4791 section 5.3.2.1: a DAV:error body with CALDAV:no-uid-conflict."""
    tags = dav_error.parse_preconditions(body)
    return f"{{{_CALDAV}}}no-uid-conflict" in tags


def _status_404(tree: Any) -> bool:
    """Some servers (Xandikos) answer PROPFIND on a missing URL with 207 and a 404 inside."""
    status = tree.findtext(f"{{{_DAV}}}response/{{{_DAV}}}status") or ""
    return " 404 " in status
