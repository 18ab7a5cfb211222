"""HTTP caching for every response the app serves, written once.

A `Representation` is an immutable body with its validators; `respond()` turns it into a Starlette
response for one request: strong ETag (RFC 9110 §8.8.3), Last-Modified (§8.8.2), If-None-Match
(§13.1.2) and If-Modified-Since (§13.1.3) answered with 304 (§15.4.5), HEAD (§9.3.2), gzip when the
client accepts it (§8.4.1, §12.5.3), and Cache-Control (RFC 9111 §5.2.2): `public, max-age` for
the conference's documents, `private` for anything behind a pick token (§5.2.2.7: a shared cache
must not keep one attendee's feed, whose URL is its only secret).
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from functools import cached_property

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Send

CALENDAR = "text/calendar; charset=utf-8"
JSON = "application/json"
HTML = "text/html; charset=utf-8"

# Answers of the picks API name a secret and change with every write: no cache keeps them.
NO_STORE = "private, no-store"

# Below this size gzip saves nothing worth a CPU cycle on either side.
_GZIP_MIN_BYTES = 256


@dataclass(frozen=True)
class Representation:
    """One body as served: bytes plus what the caching headers are derived from.

    The ETag is a hash of the exact identity bytes, so equal content gives an equal ETag across
    snapshots and restarts; the gzip variant is a different representation and gets its own
    strong tag (RFC 9110 §8.8.3.3 requires that).
    """

    body: bytes
    media_type: str
    last_modified: datetime | None = None
    headers: tuple[tuple[str, str], ...] = field(default=())
    # Personal (behind a pick token): browser cache only.
    personal: bool = False
    # Seconds a proxy keying its cache by the whole URI may keep it although it is private
    # (X-Accel-Expires, which nginx reads and never passes on): deploy/nginx's micro-cache of
    # personal feeds. None: only Cache-Control speaks.
    proxy_seconds: int | None = None

    @cached_property
    def etag(self) -> str:
        return f'"{hashlib.sha256(self.body).hexdigest()[:32]}"'

    @cached_property
    def gzip_etag(self) -> str:
        return self.etag[:-1] + '-gz"'

    @cached_property
    def gzipped(self) -> bytes:
        # mtime=0 and no file name make the compressed bytes a pure function of the body.
        return gzip.compress(self.body, compresslevel=6, mtime=0)

    @cached_property
    def _heads(self) -> dict[tuple[bool, int], tuple[Headers, Headers]]:
        return {}

    def heads(self, use_gzip: bool, max_age: int) -> tuple[Headers, Headers]:
        """The header lists of the 304 and of the full answer, for the identity or the gzip
        variant: made once each (a 304 of a cached feed is mostly this work otherwise). Shared:
        copy before changing one."""
        key = (use_gzip, max_age)
        found = self._heads.get(key)
        if found is None:
            found = self._heads[key] = self._make_heads(use_gzip, max_age)
        return found

    def _make_heads(self, use_gzip: bool, max_age: int) -> tuple[Headers, Headers]:
        headers = {
            "etag": self.gzip_etag if use_gzip else self.etag,
            "cache-control": cache_control(max_age, personal=self.personal),
            "vary": "Accept-Encoding",
        }
        if self.last_modified is not None:
            headers["last-modified"] = http_date(self.last_modified)
        if self.proxy_seconds is not None:
            # On the 304 as well: nginx revalidating an expired entry keeps it for as long again.
            headers["x-accel-expires"] = str(self.proxy_seconds)
        not_modified = _encoded(headers)
        if use_gzip:
            headers["content-encoding"] = "gzip"
        headers.update(self.headers)
        headers["content-type"] = self.media_type
        headers["content-length"] = str(len(self.gzipped if use_gzip else self.body))
        return not_modified, _encoded(headers)


def _encoded(headers: dict[str, str]) -> Headers:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]


def accepts_gzip(accept_encoding: str) -> bool:
    """True when Accept-Encoding (RFC 9110 §12.5.3) allows gzip, explicitly or via `*`, with q > 0."""
    allowed: dict[str, bool] = {}
    for item in accept_encoding.split(","):
        coding, _, params = item.strip().partition(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        allowed[coding] = _quality(params) > 0
    if "gzip" in allowed:
        return allowed["gzip"]
    if "x-gzip" in allowed:
        return allowed["x-gzip"]
    return allowed.get("*", False)


def _quality(params: str) -> float:
    # Only `_quality(...) > 0` is ever asked: the default (1.0) need only be positive.
    for param in params.split(";"):
        name, _, value = param.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value.strip())
            except ValueError:
                return 0.0
    return 1.0


def etag_matches(if_none_match: str, etag: str) -> bool:
    """If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored.

    The header may be a list or `*`.
    """
    opaque = etag.removeprefix("W/")
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == opaque:
            return True
    return False


def not_modified_since(if_modified_since: str, last_modified: datetime | None) -> bool:
    """True when the representation has not changed since the date the client holds (§13.1.3).

    An unparsable date is ignored, as the RFC requires.
    """
    if last_modified is None or not if_modified_since:
        # No header (most requests): no date to parse, and no exception raised and caught.
        return False
    try:
        since = parsedate_to_datetime(if_modified_since)
    except (TypeError, ValueError, IndexError):
        return False
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    return _to_second(last_modified) <= since


def _to_second(moment: datetime) -> datetime:
    # HTTP dates have one-second resolution; compare at that precision. UTC, not the machine's
    # zone: http_date's GMT form requires it (test_http_date_ignores_the_machines_zone).
    return moment.astimezone(UTC).replace(microsecond=0)


def http_date(moment: datetime) -> str:
    return format_datetime(_to_second(moment), usegmt=True)


def cache_control(max_age: int, *, personal: bool) -> str:
    return f"{'private' if personal else 'public'}, max-age={max_age}"


Headers = list[tuple[bytes, bytes]]


def respond(request: Request, rep: Representation, *, max_age: int) -> Response:
    """The response to GET or HEAD for `rep`, honouring the request's conditional headers."""
    # Starlette's request headers are looked up case-insensitively, as HTTP's names are.
    status, headers, body = answer(
        rep,
        max_age=max_age,
        head=request.method == "HEAD",
        accept_encoding=request.headers.get("accept-encoding", ""),
        if_none_match=request.headers.get("if-none-match"),
        if_modified_since=request.headers.get("if-modified-since", ""),
    )
    response = Response(body, status_code=status)
    response.raw_headers = headers  # exactly these, in this order
    return response


def answer(
    rep: Representation,
    *,
    max_age: int,
    head: bool,
    accept_encoding: str,
    if_none_match: str | None,
    if_modified_since: str,
) -> tuple[int, Headers, bytes]:
    """Status, header list (a new list: the caller may change it) and body of the answer to a
    GET (or HEAD, `head`) of `rep` with the given request headers. The headers of each variant
    are made once per representation (`Representation.heads`)."""
    # `>` or `>=` at the threshold: a body of exactly 256 bytes is right either way, gzipped or
    # not.
    use_gzip = len(rep.body) >= _GZIP_MIN_BYTES and accepts_gzip(accept_encoding)
    etag = rep.gzip_etag if use_gzip else rep.etag
    # §13.2.2: If-None-Match takes precedence; If-Modified-Since only counts without it.
    if if_none_match is not None:
        unchanged = etag_matches(if_none_match, etag)
    else:
        # Without the header, any default that does not parse as a date ("", or None, which
        # parsedate_to_datetime refuses with TypeError) is ignored alike.
        unchanged = not_modified_since(if_modified_since, rep.last_modified)
    not_modified, full = rep.heads(use_gzip, max_age)
    if unchanged:
        return 304, list(not_modified), b""
    # HEAD: the same headers as GET, Content-Length included, and no body (RFC 9110 §9.3.2).
    # The servers send no body for HEAD either; none is given here so none is ever sent.
    return 200, list(full), b"" if head else (rep.gzipped if use_gzip else rep.body)


def request_headers(scope_headers: Iterable[tuple[bytes, bytes]]) -> tuple[str, str | None, str]:
    """(Accept-Encoding, If-None-Match, If-Modified-Since) of an ASGI scope's header list, each
    the first of its name, as `respond` reads them through Starlette (names come lower-cased)."""
    accept_encoding: str | None = None
    if_none_match: str | None = None
    if_modified_since: str | None = None
    for name, value in scope_headers:
        if name == b"if-none-match":
            if if_none_match is None:
                if_none_match = value.decode("latin-1")
        elif name == b"accept-encoding":
            if accept_encoding is None:
                accept_encoding = value.decode("latin-1")
        elif name == b"if-modified-since" and if_modified_since is None:
            if_modified_since = value.decode("latin-1")
    return accept_encoding or "", if_none_match, if_modified_since or ""


async def send_answer(send: Send, status: int, headers: Headers, body: bytes) -> None:
    """Send an `answer` as Starlette's Response would, without building one."""
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
