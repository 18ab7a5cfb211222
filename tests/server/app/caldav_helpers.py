"""For the attach API tests: real Radicale/Xandikos servers (the pusher tests' launcher,
tests/server/caldav/dav_server.py) and a JSON client over the app."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from app_helpers import Http, Reply

# The pusher tests' helpers live beside their tests; they are shared here, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "caldav"))

from push_helpers import PASSWORD, USER, DavServer  # noqa: E402

__all__ = ["PASSWORD", "USER", "DavServer", "send_json"]


def send_json(http: Http, method: str, path: str, document: Any = None) -> Reply:
    body = None if document is None else json.dumps(document).encode()
    return http.request(method, path, {"content-type": "application/json"}, body)
