"""The access log, written by the app so no pick token ever reaches it.

A pick token is the only credential of a pick set, and it is part of the paths `/p/<token>.ics`,
`/p/<token>.svg` and `/api/picks/<token>`. The log writes those paths with the segment replaced
by `tag:` and the first 8 hex digits of its BLAKE2b hash: enough to follow one set through a log
(an operator holding a token can compute its tag with `token_tag`), useless for finding the
token (32 bits of a hash of 144 random bits). Every other path is logged as requested.

One line per response, in the ASGI servers' usual layout:
    127.0.0.1:50432 - "GET /p/tag:3f2a9c81.ics HTTP/1.1" 200
The same facts go with the line as fields (`client`, `method`, `path`, `http_version`, `status`,
`route`, `duration_ms`) for the JSON log format (server.logs); `path` is the tagged one there too.

It must cost little next to the answer it logs, and a 304 of a cached feed costs very little. When the `confcal.access` logger writes only to server.logs.AccessHandler, as
`confcal serve` configures it, the finished line goes straight into that handler's buffer: no
LogRecord, no caller lookup, no write per request. Any other set-up (a test's capture handler,
an embedding application's own handlers) gets ordinary records with the fields as `extra`. The
handler's buffer is flushed when the app's lifespan ends, as well as on its own timer.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.logs import AccessHandler
from server.metrics import Metrics, metrics
from server.web.headers import secured
from server.web.metrics import count_request, route_template

log = logging.getLogger("confcal.access")

# A segment after /p/ or /api/picks/ is a pick token, possibly with a file suffix. Searched
# anywhere in the path, not only at its start: `//p/<token>` or a prefix in front must not
# slip through.
# The codes of invitation links (server.web.invitations_api) are credentials too.
_SECRET = re.compile(r"(/p/|/api/picks/|/api/invitations/confirm/|/api/invitations/stop/)([^/]+?)(\.ics|\.svg)?(?=/|$)")


def token_tag(token: str) -> str:
    return "tag:" + hashlib.blake2b(token.encode("utf-8", "replace"), digest_size=4).hexdigest()


def loggable_path(path: str) -> str:
    """`path` with every pick token replaced by its tag; the suffix (.ics, .svg) kept."""
    if "/p/" not in path and "/picks/" not in path and "/invitations/" not in path:  # the common case, without a regex
        return path
    return _tagged(path)


# A subscribed personal feed asks for the same path all day: its tag (a regex and a hash) is
# made once. Bounded, so paths made up by a client cannot grow the memory; what it holds is no
# more secret than the pick cache's tokens (server.snapshot.pick_cache).
@functools.lru_cache(maxsize=4096)
def _tagged(path: str) -> str:
    return _SECRET.sub(lambda m: m.group(1) + token_tag(m.group(2)) + (m.group(3) or ""), path)


def direct_handler() -> AccessHandler | None:
    """The handler access lines can be handed to directly: the logger's only one, with nothing
    propagated to other loggers' handlers; else None (log records)."""
    handlers = log.handlers
    if len(handlers) == 1 and not log.propagate and isinstance(handlers[0], AccessHandler):
        return handlers[0]
    return None


def flush() -> None:
    """Write out whatever the access log's handlers hold."""
    for handler in log.handlers:
        handler.flush()


class AccessLog:
    """The access log and the request metrics (server.web.metrics) in one layer, the outermost:
    each request is timed once, and its status noted by one wrapper of `send`, for both. The
    same wrapper adds the headers every answer carries (server.web.headers)."""

    def __init__(self, app: ASGIApp, counts: Metrics | None = None) -> None:
        self.app = app
        self.counts = counts if counts is not None else metrics()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                send = _flushing_at_shutdown(send)
            await self.app(scope, receive, send)
            return
        status = 500  # what the client sees if the app fails before answering
        started = time.perf_counter()

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = secured(message)
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        finally:
            seconds = time.perf_counter() - started
            count_request(self.counts, scope, status, seconds)
            if log.isEnabledFor(logging.INFO):
                _write(scope, status, seconds)


def _write(scope: Scope, status: int, seconds: float) -> None:
    client, target, version = _client(scope), _target(scope), scope.get("http_version", "1.1")
    method = scope["method"]
    message = f'{client} - "{method} {target} HTTP/{version}" {status}'
    handler = direct_handler()
    if handler is not None and not handler.json_lines:
        handler.line(message, {})
        return
    fields: dict[str, Any] = {
        "client": client,
        "method": method,
        "path": target,
        "http_version": version,
        "status": status,
        "route": route_template(scope),
        "duration_ms": round(seconds * 1000, 3),
    }
    if handler is not None:
        handler.line(message, fields)
    else:
        log.info("%s", message, extra=fields)


def _flushing_at_shutdown(send: Send) -> Send:
    async def flushing(message: Message) -> None:
        if message["type"] == "lifespan.shutdown.complete":
            flush()
        await send(message)

    return flushing


def _client(scope: Scope) -> str:
    client = scope.get("client")
    if not client:
        return "-"
    host, port = client
    return f"{host}:{port}"


def _target(scope: Scope) -> str:
    # The decoded path, as the routes see it: a token cannot hide from the check in %-escapes.
    path = loggable_path(scope["path"])
    query = scope.get("query_string", b"")
    if query:
        return f"{path}?{query.decode('latin-1')}"
    return path
