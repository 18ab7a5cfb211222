"""URL text for the outbound guard: what counts as a URL, userinfo redaction, the size cap."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit, urlunsplit

from feeds.errors import LimitExceeded

MAX_BYTES = 20 * 1024 * 1024  # one source: a file, a URL's body, a FIFO or a device alike
SCHEMES = ("http", "https")

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# scheme://userinfo@ anywhere in a text (RFC 3986 §3.2.1: userinfo ends at the last '@' before the path)
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@")


def is_url(source: str) -> bool:
    """`scheme://...` of any scheme, in any case: such a source is a URL, never a file path."""
    return _URL.match(source) is not None


def is_http(url: str) -> bool:
    # The scheme is the text before the first ":"; the rest need not be split.
    return is_url(url) and url.split(":", 1)[0].lower() in SCHEMES


def public_url(url: str) -> str:
    """The URL without userinfo: what may appear in messages and in the sync-state key."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, ""))


def redact(text: str) -> str:
    """`text` with the userinfo (`user:password@`) of every URL in it replaced by `***@`."""
    return _USERINFO.sub(r"\1***@", text)


def without_userinfo(url: str) -> str:
    """`url` with no userinfo at all, to store or publish as a schedule's source."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def collect(chunks: Iterable[bytes], limit: int = MAX_BYTES) -> bytes:
    """Join `chunks`, stopping with LimitExceeded as soon as they pass `limit` bytes: the count is
    of bytes read, so a device, a FIFO or a body without Content-Length is bounded too."""
    parts: list[bytes] = []
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise LimitExceeded(f"is larger than the limit of {limit} bytes")
        parts.append(chunk)
    return b"".join(parts)
