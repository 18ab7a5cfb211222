"""A real HTTP proxy on 127.0.0.1 in front of a running server that sends each HTML page in
small pieces with a pause after each, as a slow phone network does: the browser paints the page
as it streams in, so a test sees every partly-arrived state a visitor may see. Everything else
(stylesheets, scripts, JSON) passes through whole and at once."""

from __future__ import annotations

import http.client
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.helpers.threaded_server import in_thread

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser closes a connection mid-page when it goes on (a test's next step): no error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def trickling(upstream: str, piece: int = 512, pause: float = 0.015) -> Iterator[str]:
    """Yield the proxy's base URL; HTML answers arrive `piece` bytes at a time, `pause` apart."""
    target = urlsplit(upstream)

    class Trickle(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            conn = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port, timeout=30)
            # Identity encoding, so the pieces are pieces of the page itself.
            headers = {k: v for k, v in self.headers.items() if k.lower() not in {"accept-encoding", "host"}}
            conn.request("GET", self.path, headers=headers)
            answer = conn.getresponse()
            body = answer.read()
            conn.close()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in _HOP_BY_HOP:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            html = answer.getheader("Content-Type", "").startswith("text/html")
            step = piece if html else max(len(body), 1)
            for start in range(0, len(body), step):
                self.wfile.write(body[start : start + step])
                self.wfile.flush()
                if html:
                    time.sleep(pause)

        def log_message(self, format: str, *args: object) -> None:
            pass  # the test reads what the browser saw, not the proxy's log

    proxy = _Server(("127.0.0.1", 0), Trickle)
    with in_thread(proxy):
        yield f"http://127.0.0.1:{proxy.server_address[1]}"
