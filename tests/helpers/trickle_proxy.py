"""A real HTTP proxy on 127.0.0.1 in front of a running server that sends each HTML page in
small pieces with a pause after each, as a slow phone network does: the browser paints the page
as it streams in, so a test sees every partly-arrived state a visitor may see. Everything else
(stylesheets, scripts, JSON) passes through whole and at once."""

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
        step = piece if html else max(len(body), 1)
        for start in range(0, len(body), step):
            handler.wfile.write(body[start : start + step])
            handler.wfile.flush()
            if html:
                time.sleep(pause)

    proxy = forwarding_server(forward)
    with in_thread(proxy):
        yield f"http://127.0.0.1:{proxy.server_address[1]}"
