"""A real HTTP server on loopback that serves schedule pages the test changes, with strong ETags,
and counts what it answered (200s and 304s per path)."""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.helpers.threaded_server import in_thread

# Seed page 002 with one title edited and one session gone.
CHANGED_PAGE = Path(__file__).resolve().parents[1] / "server" / "app" / "fixtures" / "002_changed.txt"


class PageServer:
    def __init__(self) -> None:
        self.pages: dict[str, bytes] = {}
        self.status: dict[str, int] = {}  # a path answered with this status instead
        self.answers: Counter[tuple[str, int]] = Counter()
        self.lock = threading.Lock()
        self.base = ""

    def put(self, path: str, body: bytes) -> str:
        with self.lock:
            self.pages[path] = body
        return self.base + path

    def put_folder(self, folder: Path) -> list[str]:
        return [self.put(f"/{page.name}", page.read_bytes()) for page in sorted(folder.iterdir())]

    def count(self, status: int) -> int:
        with self.lock:
            return sum(n for (_, code), n in self.answers.items() if code == status)


def _handler(server: PageServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            with server.lock:
                body = server.pages.get(self.path)
                forced = server.status.get(self.path)
            if forced is not None or body is None:
                code = forced or 404
                self._answer(code, b"")
                return
            etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
            if self.headers.get("If-None-Match") == etag:
                self._answer(304, b"", etag)
            else:
                self._answer(200, body, etag)

        def _answer(self, code: int, body: bytes, etag: str | None = None) -> None:
            with server.lock:
                server.answers[(self.path, code)] += 1
            self.send_response(code)
            if etag:
                self.send_header("ETag", etag)
            if code != 304:
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if code != 304:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
            pass

    return Handler


@contextmanager
def page_server() -> Iterator[PageServer]:
    pages = PageServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(pages))
    pages.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    with in_thread(httpd):
        yield pages
