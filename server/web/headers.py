"""Headers every response carries, whatever route (or error) produced it.

- `X-Content-Type-Options: nosniff`: a browser must take the declared media type, never guess
  HTML or script from a body that holds third-party schedule text (Fetch standard, §3.5).
- `Referrer-Policy: no-referrer`: a personal feed URL is its pick set's only secret; a link
  followed from a page must not carry it to another site in Referer (W3C Referrer Policy §3.1).

Added by the outermost layer (server.web.access_log.AccessLog), in the one wrapper of `send`
that also notes the status for the access log and the metrics: a layer of its own cost a
coroutine and two more calls per request. It only appends to the header list of the
response start message, and never buffers a body.
"""

from __future__ import annotations

from starlette.types import Message

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


def secured(start: Message) -> Message:
    """The response start message `start` with the security headers it lacks (a copy)."""
    headers = list(start.get("headers", ()))
    present = {name.lower() for name, _ in headers}
    headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
    return {**start, "headers": headers}
