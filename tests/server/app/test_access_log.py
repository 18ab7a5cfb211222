"""The access log: pick tokens replaced by a short tag, everything else as requested; handed to
serve's AccessHandler without log records, and flushed when the lifespan ends."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from starlette.applications import Starlette
from starlette.types import Message

from server.logs import AccessHandler
from server.web.access_log import AccessLog, direct_handler, flush, loggable_path, token_tag
from tests.helpers.app_helpers import Http, send

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


def test_the_app_logs_every_request_without_its_token(demo_app: Starlette, caplog: pytest.LogCaptureFixture) -> None:
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


@pytest.fixture
def access_file(tmp_path: Path) -> Iterator[tuple[Path, list[logging.LogRecord]]]:
    """confcal.access as `confcal serve` sets it up (one AccessHandler, not propagated), into a
    file, with its timer far off; and the records that reached the logger's filter."""
    path = tmp_path / "access.log"
    logger = logging.getLogger("confcal.access")
    saved = (logger.handlers[:], logger.propagate, logger.level)
    records: list[logging.LogRecord] = []

    def note(record: logging.LogRecord) -> bool:
        records.append(record)
        return True

    with path.open("w", encoding="utf-8") as stream:
        handler = AccessHandler(stream, interval=3600)
        logger.handlers[:] = [handler]
        logger.propagate = False
        logger.setLevel(logging.INFO)
        logger.addFilter(note)
        try:
            yield path, records
        finally:
            logger.removeFilter(note)
            logger.handlers[:], logger.propagate, logger.level = saved
            handler.close()


def test_with_the_access_handler_lines_are_written_without_log_records(
    demo_app: Starlette, access_file: tuple[Path, list[logging.LogRecord]]
) -> None:
    path, records = access_file
    token = send(demo_app, "POST", "/api/picks", b'{"sessions": []}').json_doc()["token"]

    Http(demo_app).get(f"/p/{token}.ics")
    flush()

    assert records == []
    assert path.read_text(encoding="utf-8").splitlines()[-1] == (
        f'INFO:     127.0.0.1:123 - "GET /p/{token_tag(token)}.ics HTTP/1.1" 200'
    )


def test_the_end_of_the_lifespan_writes_the_buffered_lines(
    access_file: tuple[Path, list[logging.LogRecord]],
) -> None:
    path, _ = access_file
    app = AccessLog(Starlette())
    messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
    written: list[str] = []

    async def receive() -> Message:
        return next(messages)

    async def note(message: Message) -> None:
        written.append(path.read_text(encoding="utf-8"))

    direct_handler().line("buffered", {})  # type: ignore[union-attr]
    anyio.run(app, {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, note)

    # Nothing at startup; the line is out by the time shutdown completes.
    assert written == ["", "INFO:     buffered\n"]
