"""The validators a fetch sends back (RFC 9110 §13.1), apart from the fetching: the store keeps
them per source (server.store.sources) without loading the HTTP client."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Validators:
    """A stored response's ETag and Last-Modified, sent back as If-None-Match and
    If-Modified-Since (RFC 9110 §13.1.2, §13.1.3)."""

    etag: str | None = None
    last_modified: str | None = None
