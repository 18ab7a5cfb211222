"""The access log, written by the app so no pick token ever reaches it.

A pick token is the only credential of a pick set, and it is part of the paths `/p/<token>.ics`,
`/p/<token>.svg` and `/api/picks/<token>`. The log writes those paths with the segment replaced
by `tag:` and the first 8 hex digits of its BLAKE2b hash: enough to follow one set through a log
(an operator holding a token can compute its tag with `token_tag`), useless for finding the
token (32 bits of a hash of 144 random bits). Every other path is logged as requested.

One line per response, in the ASGI servers' usual layout:
    127.0.0.1:50432 - "GET /p/tag:3f2a9c81.ics HTTP/1.1" 200
It is a pure ASGI wrapper: it looks at the response start only and formats the line once, so
it costs no more than the server's own access log, which `confcal serve` turns off. The same
facts go with the record as fields (`client`, `method`, `path`, `http_version`, `status`, `route`,
`duration_ms`) for the JSON log format (server.logs); `path` is the tagged one there too.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.app.metrics import route_template

log = logging.getLogger("confcal.access")

# A segment after /p/ or /api/picks/ is a pick token, possibly with a file suffix. Searched
# anywhere in the path, not only at its start: `//p/<token>` or a prefix in front must not
# slip through.
_SECRET = re.compile(r"(/p/|/api/picks/)([^/]+?)(\.ics|\.svg)?(?=/|$)")


def token_tag(token: str) -> str:
    return "tag:" + hashlib.blake2b(token.encode("utf-8", "replace"), digest_size=4).hexdigest()


def loggable_path(path: str) -> str:
    """`path` with every pick token replaced by its tag; the suffix (.ics, .svg) kept."""
    if "/p/" not in path and "/picks/" not in path:  # the common case, without a regex
        return path
    return _SECRET.sub(lambda m: m.group(1) + token_tag(m.group(2)) + (m.group(3) or ""), path)


class AccessLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        status = 500  # what the client sees if the app fails before answering
        started = time.perf_counter()

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_noting_status)
        finally:
            client, target, version = _client(scope), _target(scope), scope.get("http_version", "1.1")
            fields = {
                "client": client,
                "method": scope["method"],
                "path": target,
                "http_version": version,
                "status": status,
                "route": route_template(scope),
                "duration_ms": round((time.perf_counter() - started) * 1000, 3),
            }
            log.info('%s - "%s %s HTTP/%s" %d', client, scope["method"], target, version, status, extra=fields)


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
