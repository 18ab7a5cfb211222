"""A chunked request body the ASGI server cannot decode, sent over a raw socket to a real
`confcal serve`: a 400 naming the body, and one access-log line per request, no traceback."""

from __future__ import annotations

import re
import socket
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.helpers.serve_process import running_confcal

HUGE_CHUNK_SIZE = b"FFFFFFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n"
HUGE_CHUNK_EXTENSION = b"2;" + b"x" * 100_000 + b"\r\n{}\r\n0\r\n\r\n"


def chunked_post(url: str, path: str, body: bytes) -> bytes:
    """Everything the server answers to a POST of `body` as the raw chunked message body."""
    address = urlsplit(url)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {address.netloc}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(head + body)
        answer = b""
        while data := sock.recv(65536):
            answer += data
    return answer


def status_and_body(answer: bytes) -> tuple[int, bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


@pytest.mark.parametrize("body", [HUGE_CHUNK_SIZE, HUGE_CHUNK_EXTENSION], ids=["chunk-size", "chunk-extension"])
def test_an_unreadable_chunked_body_is_a_400_and_one_log_line(tmp_path: Path, body: bytes) -> None:
    with running_confcal(tmp_path) as running:
        first = httpx.get(running.url + "/api/sessions").json()["sessions"][0]["id"]
        token = httpx.post(running.url + "/api/picks", json={"sessions": [first]}).json()["token"]

        answers = [chunked_post(running.url, path, body) for path in ("/api/picks", f"/api/picks/{token}/caldav")]

    log = (tmp_path / "serve.log").read_text(encoding="utf-8")
    message = b'{"error":"request body is malformed or cut off (its chunked encoding cannot be read)"}'
    assert [status_and_body(a) for a in answers] == [(400, message), (400, message)]
    assert re.findall(r'"POST /api/picks\S* HTTP/1.1" (\d+)', log) == ["201", "400", "400"]
    assert "Traceback" not in log
