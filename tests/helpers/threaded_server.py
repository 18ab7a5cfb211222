"""A test's own HTTP servers (http.server, socketserver), each answering from a thread of its own,
and what the tests' proxies in front of a real server share (tests/helpers/dav_proxy.py,
cue_proxy.py, trickle_proxy.py): a server handing each request to a function, asking the
server behind, and answering with what it said."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseServer

# Headers about one connection, not the message: never passed through (Content-Length is set anew).
HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection"})


@contextmanager
def in_thread(server: BaseServer) -> Iterator[None]:
    """`server` answers while the block runs; then it stops and its socket is closed."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def forwarding_server(forward: Callable[[BaseHTTPRequestHandler], None]) -> ThreadingHTTPServer:
    """An HTTP/1.1 server on a free loopback port that hands every request to `forward`, which
    answers it (or closes the connection unanswered)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def handle_one_request(self) -> None:
            try:
                self.raw_requestline = self.rfile.readline(65537)
                if not self.raw_requestline or not self.parse_request():
                    self.close_connection = True
                    return
                forward(self)
                self.wfile.flush()
            except ConnectionError:
                # The client left mid-exchange (a browser going on to the next page): no error.
                self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    return server


def passed_on(headers: Iterable[tuple[str, str]], drop: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """`headers` without those about the connection, nor those named (lower case) in `drop`."""
    return [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP and k.lower() not in drop]


def ask_upstream(
    port: int, method: str, path: str, body: bytes, headers: Mapping[str, str]
) -> tuple[http.client.HTTPResponse, bytes]:
    """The answer of the server on 127.0.0.1:`port` to one request, and its body, read whole."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=dict(headers))
        answer = connection.getresponse()
        return answer, answer.read()
    finally:
        connection.close()


def send_head(
    handler: BaseHTTPRequestHandler, status: int, reason: str, headers: Iterable[tuple[str, str]], length: int
) -> None:
    """The status line and headers of an answer whose body is `length` bytes."""
    handler.send_response(status, reason)
    for key, value in headers:
        handler.send_header(key, value)
    handler.send_header("Content-Length", str(length))
    handler.end_headers()


def send_answer(
    handler: BaseHTTPRequestHandler, status: int, reason: str, headers: Iterable[tuple[str, str]], data: bytes
) -> None:
    """A whole answer: its body unless the request was a HEAD."""
    send_head(handler, status, reason, headers, len(data))
    if handler.command != "HEAD":
        handler.wfile.write(data)
