"""Helpers shared by the HTTP app tests: two in-process clients and the test clock.

`Http` goes through httpx's ASGITransport (as a browser or calendar client would, URL
normalisation included); `raw_get` hands the app an exact ASGI scope, as uvicorn builds it, so
hostile paths (`..`, NUL, invalid UTF-8) reach the app unaltered.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo

import anyio
import httpx
from starlette.applications import Starlette
from starlette.types import Message, Scope

HERE = Path(__file__).resolve().parents[1] / "server" / "app"
CHANGED_PAGE = HERE / "fixtures" / "002_changed.txt"
NOW = datetime(2026, 4, 1, tzinfo=UTC)


@dataclass
class Reply:
    status: int
    headers: httpx.Headers
    raw: bytes  # as sent, possibly gzip
    content: bytes  # decoded

    @property
    def text(self) -> str:
        return self.content.decode("utf-8")

    def json_doc(self) -> Any:
        return json.loads(self.content)


@dataclass
class Http:
    app: Starlette
    base_url: str = "http://testserver"
    default_headers: dict[str, str] = field(default_factory=dict)
    client: tuple[str, int] = ("127.0.0.1", 123)  # the address the app sees the request from

    def request(
        self,
        method: str,
        path: str,
        headers: dict[str, str] | None = None,
        body: bytes | None = None,
    ) -> Reply:
        async def go() -> Reply:
            transport = httpx.ASGITransport(app=self.app, client=self.client)
            async with httpx.AsyncClient(transport=transport, base_url=self.base_url) as client:
                req = client.build_request(
                    method,
                    path,
                    headers={**self.default_headers, **(headers or {})},
                    content=body,
                )
                response = await client.send(req, stream=True)
                raw = b"".join([chunk async for chunk in response.aiter_raw()])
                await response.aclose()
                gzipped = response.headers.get("content-encoding") == "gzip"
                content = gzip.decompress(raw) if gzipped else raw
                return Reply(response.status_code, response.headers, raw, content)

        return anyio.run(go)

    def get(self, path: str, **headers: str) -> Reply:
        return self.request("GET", path, {k.replace("_", "-"): v for k, v in headers.items()})

    def head(self, path: str, **headers: str) -> Reply:
        return self.request("HEAD", path, {k.replace("_", "-"): v for k, v in headers.items()})


def raw_get(app: Starlette, raw_path: bytes) -> tuple[int, bytes]:
    """GET with `raw_path` exactly as it came off the wire; `path` decoded the way uvicorn does."""
    path = unquote(raw_path.decode("ascii", errors="replace"))
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": raw_path,
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    async def call() -> None:
        await app(scope, receive, send)

    anyio.run(call)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body


def paris(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 4, 7, hour, minute, tzinfo=ZoneInfo("Europe/Paris"))


def send(
    app: Starlette,
    method: str,
    path: str,
    content: bytes | AsyncIterator[bytes] | None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """One request with a body (bytes, or an async stream httpx sends chunked, without
    Content-Length; None for none); the body is declared JSON unless `headers` say otherwise."""

    async def go() -> Reply:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await client.request(
                method,
                path,
                content=content,
                headers={"content-type": "application/json"} if headers is None else headers,
            )
            return Reply(response.status_code, response.headers, response.content, response.content)

    return anyio.run(go)
