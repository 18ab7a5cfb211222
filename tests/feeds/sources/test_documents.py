"""Reading sources: decoding, sizes and URL fetching against a real loopback HTTP server."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from feeds.demo import DEMO_DIR
from feeds.errors import LimitExceeded, SourceError
from feeds.sources.documents import MAX_BYTES, MAX_FILES, decode, expand, fetch, read, read_all
from tests.helpers.threaded_server import in_thread

PAGE = (DEMO_DIR / "004_fee1753b2cc96b06.txt").read_bytes()
ROUTES = {
    "/page.txt": (200, None),
    "/moved": (301, "/page.txt"),
    "/relative-chain": (302, "moved"),
    "/to-ftp": (302, "ftp://example.org/page.txt"),
    "/loop": (302, "/loop"),
    "/gone": (404, None),
    "/endless": (200, None),
    "/too-long": (200, None),
}
TOO_MUCH = MAX_BYTES + 64 * 1024


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, location = ROUTES.get(self.path, (404, None))
        self.send_response(status)
        if self.path in ("/endless", "/too-long"):
            self._send_too_much(declared=self.path == "/too-long")
            return
        if location:
            self.send_header("Location", location)
        body = PAGE if status == 200 else b""
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_too_much(self, *, declared: bool) -> None:
        """More than the cap, with Content-Length or closing the connection at the end (HTTP/1.0)."""
        if declared:
            self.send_header("Content-Length", str(TOO_MUCH))
        else:
            self.close_connection = True
        self.end_headers()
        chunk = b"x" * 64 * 1024
        try:
            for _ in range(TOO_MUCH // len(chunk)):
                self.wfile.write(chunk)
        except OSError:
            pass  # the client stopped reading at the cap

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def origin() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with in_thread(server):
        yield f"http://127.0.0.1:{server.server_address[1]}"


@pytest.mark.parametrize("path", ["/page.txt", "/moved", "/relative-chain"])
def test_redirects_are_followed(origin: str, path: str) -> None:
    document = fetch(origin + path, allow_private=True)

    assert (document.name, document.text) == (origin + path, decode(PAGE, "x"))


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/to-ftp", "redirects to 'ftp://example.org/page.txt', which is not an http(s) URL"),
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


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b" \n", "is empty"),
        (b"a\x00b", "is a binary file, not a schedule page"),
        (b"\xff\xfe", "is not UTF-8 text (byte 0)"),
    ],
)
def test_undecodable_input(data: bytes, message: str) -> None:
    with pytest.raises(SourceError) as caught:
        decode(data, "f.txt")

    assert str(caught.value) == f"f.txt: {message}"


def test_a_device_is_cut_off_at_the_cap() -> None:
    with pytest.raises(LimitExceeded) as caught:
        read("/dev/zero")

    assert str(caught.value) == f"/dev/zero: is larger than the limit of {MAX_BYTES} bytes"


def test_a_file_over_the_cap_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with big.open("wb") as out:
        out.truncate(MAX_BYTES + 1)

    with pytest.raises(LimitExceeded) as caught:
        read(str(big))

    assert str(caught.value) == f"{big}: is larger than the limit of {MAX_BYTES} bytes"


def test_a_file_at_the_cap_is_read(tmp_path: Path) -> None:
    page = tmp_path / "page.txt"
    page.write_bytes(PAGE + b" " * (MAX_BYTES - len(PAGE)))

    [document] = read(str(page))

    assert len(document.text.encode()) == MAX_BYTES


def _feed(fifo: Path, data: bytes, *, repeat: bool) -> None:
    try:
        with fifo.open("wb") as out:
            out.write(data)
            while repeat:
                out.write(data)
    except BrokenPipeError:
        pass  # the reader stopped at the cap


@pytest.mark.parametrize("repeat", [False, True])
def test_a_fifo_is_counted_while_read(tmp_path: Path, repeat: bool) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(
        target=_feed,
        args=(
            fifo,
            PAGE,
        ),
        kwargs={"repeat": repeat},
        daemon=True,
    )
    writer.start()

    if repeat:
        with pytest.raises(LimitExceeded) as caught:
            read(str(fifo))
        assert str(caught.value) == f"{fifo}: is larger than the limit of {MAX_BYTES} bytes"
    else:
        assert read(str(fifo))[0].text == decode(PAGE, "x")
    writer.join()


@pytest.mark.parametrize("path", ["/endless", "/too-long"])
def test_a_url_is_cut_off_at_the_cap_with_or_without_content_length(origin: str, path: str) -> None:
    with pytest.raises(LimitExceeded) as caught:
        fetch(origin + path, allow_private=True)

    declared = f" ({TOO_MUCH} declared)" if path == "/too-long" else ""
    assert str(caught.value) == f"{origin}{path}: is larger than the limit of {MAX_BYTES} bytes{declared}"


def test_a_folder_over_the_file_count_cap_is_refused(tmp_path: Path) -> None:
    for n in range(MAX_FILES + 1):
        (tmp_path / f"{n:05d}.txt").write_bytes(b"")

    with pytest.raises(LimitExceeded) as caught:
        expand(str(tmp_path))

    assert str(caught.value) == f"{tmp_path}: holds more than {MAX_FILES} files, the limit"


def test_a_folder_at_the_file_count_cap_is_listed(tmp_path: Path) -> None:
    for n in range(MAX_FILES):
        (tmp_path / f"{n:05d}.txt").write_bytes(b"")

    assert len(expand(str(tmp_path))) == MAX_FILES


def test_all_sources_together_are_bounded(tmp_path: Path) -> None:
    pages = [tmp_path / f"{n}.txt" for n in range(3)]
    for page in pages:
        page.write_bytes(PAGE)

    with pytest.raises(LimitExceeded) as caught:
        read_all([str(p) for p in pages], total=2 * len(PAGE) + 10)

    assert str(caught.value) == f"{pages[2]}: passes the limit of {2 * len(PAGE) + 10} bytes for all sources together"


@pytest.mark.parametrize("scheme", ["HTTP", "Http"])
def test_the_scheme_is_case_insensitive(origin: str, scheme: str) -> None:
    url = origin.replace("http", scheme, 1) + "/page.txt"

    [document] = read(url, allow_private=True)

    assert (document.name, document.text) == (url, decode(PAGE, "x"))


def test_userinfo_is_redacted_in_names_and_dropped_from_the_stored_url(origin: str) -> None:
    url = origin.replace("http://", "http://organiser:hunter2@") + "/page.txt"

    [document] = read(url, allow_private=True)

    assert (document.name, document.url) == (
        origin.replace("http://", "http://***@") + "/page.txt",
        origin + "/page.txt",
    )


def test_userinfo_is_redacted_in_errors(origin: str) -> None:
    url = origin.replace("http://", "http://organiser:hunter2@") + "/gone"

    with pytest.raises(SourceError) as caught:
        read(url, allow_private=True)

    assert str(caught.value) == origin.replace("http://", "http://***@") + "/gone: HTTP 404"
