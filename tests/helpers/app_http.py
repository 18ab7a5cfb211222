"""Reading a store's documents through the real app, in process (httpx's ASGI transport)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx

from server.store import Store
from server.web.app import create_app


def get(db: str, path: str) -> bytes:
    with Store.open(db) as store:
        app = create_app(store)

        async def fetch() -> bytes:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as client:
                response = await client.get(path, headers={"accept-encoding": "identity"})
                assert response.status_code == 200, (path, response.status_code)
                return response.content

        return anyio.run(fetch)


def api_sessions(db: str) -> list[dict[str, Any]]:
    sessions: list[dict[str, Any]] = json.loads(get(db, "/api/sessions"))["sessions"]
    return sessions
