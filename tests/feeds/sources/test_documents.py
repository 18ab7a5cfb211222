"""Reading sources: decoding, sizes and URL fetching against a real loopback HTTP server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from feeds.demo import DEMO_DIR
from feeds.errors import SourceError
from feeds.sources.documents import decode, fetch

PAGE = (DEMO_DIR / "004_fee1753b2cc96b06.txt").read_bytes()
ROUTES = {
    "/page.txt": (200, None),
    "/moved": (301, "/page.txt"),
    "/relative-chain": (302, "moved"),
    "/to-ftp": (302, "ftp://example.org/page.txt"),
    "/loop": (302, "/loop"),
    "/gone": (404, None),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, location = ROUTES.get(self.path, (404, None))
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        body = PAGE if status == 200 else b""
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("path", ["/page.txt", "/moved", "/relative-chain"])
def test_redirects_are_followed(origin: str, path: str) -> None:
    document = fetch(origin + path, allow_private=True)

    assert (document.name, document.text) == (origin + path, decode(PAGE, "x"))


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/to-ftp", "redirects to 'ftp://example.org/page.txt', which is not http(s)"),
        ("/loop", "more than 5 redirects"),
        ("/gone", "HTTP 404"),
    ],
)
def test_bad_answers_are_one_line_errors(origin: str, path: str, message: str) -> None:
    with pytest.raises(SourceError) as caught:
        fetch(origin + path, allow_private=True)

    assert str(caught.value) == f"{origin}{path}: {message}"


def test_private_address_is_refused_unless_allowed(origin: str) -> None:
    with pytest.raises(SourceError, match="host 127.0.0.1 is a private address"):
        fetch(origin + "/page.txt")


def test_crlf_and_bom_decode_like_the_original() -> None:
    assert decode(b"\xef\xbb\xbfa\r\nb\rc\n", "x") == "a\nb\nc\n"


@pytest.mark.parametrize(("data", "message"), [(b" \n", "is empty"), (b"a\x00b", "is a binary file, not a schedule page"), (b"\xff\xfe", "is not UTF-8 text (byte 0)")])
def test_undecodable_input(data: bytes, message: str) -> None:
    with pytest.raises(SourceError) as caught:
        decode(data, "f.txt")

    assert str(caught.value) == f"f.txt: {message}"
