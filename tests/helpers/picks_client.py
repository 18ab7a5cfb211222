"""The picks API as a client calls it, in process: one JSON request, the demo's session ids, and
the path of a feed URL the API answers with."""

from __future__ import annotations

import json

import httpx
from starlette.applications import Starlette

from tests.helpers.app_helpers import Http, Reply, send


def call(
    app: Starlette,
    method: str,
    path: str,
    body: object = None,
    raw: bytes | None = None,
) -> Reply:
    """One request; `body` is sent as JSON, `raw` as is."""
    content = raw if raw is not None else (None if body is None else json.dumps(body).encode())

    return send(app, method, path, content)


def session_ids(http: Http) -> list[str]:
    return [s["id"] for s in http.get("/api/sessions").json_doc()["sessions"]]


def path_of(url: str) -> str:
    return httpx.URL(url).raw_path.decode()
