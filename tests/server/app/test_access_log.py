"""The access log: pick tokens replaced by a short tag, everything else as requested."""

from __future__ import annotations

import hashlib
import logging

import pytest
from app_helpers import Http, send
from starlette.applications import Starlette

from server.app.access_log import loggable_path, token_tag

TOKEN = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5"


def test_the_tag_is_eight_hex_digits_of_blake2b() -> None:
    expected = hashlib.blake2b(TOKEN.encode(), digest_size=4).hexdigest()

    assert token_tag(TOKEN) == f"tag:{expected}"
    assert len(expected) == 8


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        (f"/p/{TOKEN}.ics", f"/p/{token_tag(TOKEN)}.ics"),
        (f"/p/{TOKEN}.svg", f"/p/{token_tag(TOKEN)}.svg"),
        (f"/api/picks/{TOKEN}", f"/api/picks/{token_tag(TOKEN)}"),
        (f"/c/some-conf/p/{TOKEN}.ics", f"/c/some-conf/p/{token_tag(TOKEN)}.ics"),
        (f"//p/{TOKEN}.ics", f"//p/{token_tag(TOKEN)}.ics"),
        (f"/p/{TOKEN}/extra", f"/p/{token_tag(TOKEN)}/extra"),
        (f"/p/.{TOKEN}", f"/p/{token_tag('.' + TOKEN)}"),
        ("/api/picks", "/api/picks"),
        ("/feeds/all.ics", "/feeds/all.ics"),
        ("/", "/"),
    ],
)
def test_tokens_in_paths_are_replaced_by_their_tag(path: str, logged: str) -> None:
    assert loggable_path(path) == logged


def test_the_app_logs_every_request_without_its_token(
    demo_app: Starlette, caplog: pytest.LogCaptureFixture
) -> None:
    token = send(demo_app, "POST", "/api/picks", b'{"sessions": []}').json_doc()["token"]
    http = Http(demo_app)

    with caplog.at_level(logging.INFO, logger="confcal.access"):
        http.get(f"/p/{token}.ics?download=1")
        http.get(f"/api/picks/{token}")
        send(demo_app, "PUT", f"/api/picks/{token}", b'{"sessions": []}')
        http.get("/feeds/all.ics")
        http.get("/no/such/page")

    tag = token_tag(token)
    assert [r.getMessage() for r in caplog.records if r.name == "confcal.access"] == [
        f'127.0.0.1:123 - "GET /p/{tag}.ics?download=1 HTTP/1.1" 200',
        f'127.0.0.1:123 - "GET /api/picks/{tag} HTTP/1.1" 200',
        f'127.0.0.1:123 - "PUT /api/picks/{tag} HTTP/1.1" 200',
        '127.0.0.1:123 - "GET /feeds/all.ics HTTP/1.1" 200',
        '127.0.0.1:123 - "GET /no/such/page HTTP/1.1" 404',
    ]
    assert token not in caplog.text
