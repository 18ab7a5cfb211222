"""Which links from a source may be kept and shown: absolute http and https URLs, nothing else.

A source's URL becomes an `<a href>` on the session page, a URL property in the calendars and a
link in the exports. A `javascript:` (or `data:`, `vbscript:`) link there runs on our origin when
clicked, where the attendee's pick tokens are; `file:` and relative links point nowhere useful.
The readers' links are filtered at ingest (feeds.merge, with a warning), and every renderer asks
again, so a link that reached a store before the filter existed is never shown either.
"""

from __future__ import annotations

import re
from urllib.parse import quote

# scheme "://" host from the first character: the scheme case-insensitive (RFC 3986 §3.1), a host
# present. No control character anywhere: browsers drop tabs and newlines from a URL before they
# read its scheme ("java\tscript:" is a script there), and no URL of a real page has one. A space
# after the host is left to the browser to encode, as sources do write them.
_WEB_LINK = re.compile(r"(?i:https?)://[^/?#\s\x00-\x1f\x7f]+(?:[/?#][^\x00-\x1f\x7f]*)?")


def as_uri(url: str) -> str:
    """`url` with what RFC 3986 does not allow unencoded (spaces, brackets in a query, non-ASCII)
    percent-encoded: the same address, in the form a strict reader (a JSON Schema `uri`) takes."""
    base, hash_sign, fragment = url.partition("#")
    allowed = ":/?@!$&'()*+,;=%~-._"  # RFC 3986 pchar and delimiters; a second "#" is not one
    return quote(base, safe=allowed) + hash_sign + quote(fragment, safe=allowed)


def web_link(url: str | None) -> str | None:
    """`url` when it is an absolute http(s) URL with a host, else None."""
    if url is None or _WEB_LINK.fullmatch(url) is None:
        return None
    return url
