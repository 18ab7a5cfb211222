"""A real HTTP proxy on 127.0.0.1 in front of a running server that sends each HTML page in
small pieces with a pause after each, as a slow phone network does: the browser paints the page
as it streams in, so a test sees the partly-arrived states a visitor may see. Everything else
(stylesheets, scripts, JSON) passes through whole and at once.

Each piece ends with an end tag, so every text arrives whole. A word cut in two may wrap when
its rest arrives, and a space cut off before the next element is laid out as the end of its
line: either is a shift no layout can prevent, and whether the browser paints that moment
depends on its timing, not on the page."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit

from tests.helpers.threaded_server import ask_upstream, forwarding_server, in_thread, passed_on, send_head

# Identity encoding, so the pieces are pieces of the page itself; and the server's own Host, as
# the Host allow list answers no other.
_ASKED_AFRESH = frozenset({"accept-encoding", "host"})


@contextmanager
def trickling(upstream: str, piece: int = 512, pause: float = 0.015) -> Iterator[str]:
    """Yield the proxy's base URL; HTML answers arrive `piece` bytes at a time, `pause` apart."""
    port = urlsplit(upstream).port or 80

    def forward(handler: BaseHTTPRequestHandler) -> None:
        headers = dict(passed_on(handler.headers.items(), _ASKED_AFRESH))
        asked = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        answer, body = ask_upstream(port, handler.command, handler.path, asked, headers)
        send_head(handler, answer.status, answer.reason, passed_on(answer.getheaders()), len(body))
        html = answer.getheader("Content-Type", "").startswith("text/html")
        for part in _pieces(body, piece) if html else (body,):
            handler.wfile.write(part)
            handler.wfile.flush()
            if html:
                time.sleep(pause)

    proxy = forwarding_server(forward)
    with in_thread(proxy):
        yield f"http://127.0.0.1:{proxy.server_address[1]}"


def _pieces(body: bytes, size: int) -> Iterator[bytes]:
    """`body` in pieces of at least `size` bytes, each ending with an end tag (the last with
    the body)."""
    start = 0
    while start < len(body):
        tag = body.find(b"</", start + size - 2)
        cut = body.find(b">", tag) if tag >= 0 else -1
        end = len(body) if cut < 0 else cut + 1
        yield body[start:end]
        start = end
