"""For the attach API tests: real Radicale/Xandikos servers (the pusher tests' launcher,
tests/helpers/dav_server.py) and a JSON client over the app."""

from __future__ import annotations

import json
from typing import Any

from tests.helpers.app_helpers import Http, Reply
from tests.helpers.push_helpers import PASSWORD, USER, DavServer

__all__ = ["PASSWORD", "USER", "DavServer", "send_json"]


def send_json(http: Http, method: str, path: str, document: Any = None) -> Reply:
    body = None if document is None else json.dumps(document).encode()
    return http.request(method, path, {"content-type": "application/json"}, body)
