"""The shared servers (sabre/dav, Cyrus, SOGo: tests/helpers/shared_caldav.py) behind a real HTTP
proxy on 127.0.0.1 that counts and misbehaves on cue exactly as dav_server.py's wrapper does for
Radicale, Xandikos and DAViCal: those servers are external processes whose code we cannot wrap,
so the cues act on the wire in front of them.

`CueingServer` has DavServer's face (new_calendar, request, counts, cue, username, password), so
tests/helpers/push_helpers.DavBackend and the push tests run on these servers unchanged.
"""

from __future__ import annotations

import base64
import socket
import threading
import uuid
from collections import Counter
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote, urlsplit
from urllib.request import Request, urlopen

import pytest

from tests.helpers.push_helpers import Cue
from tests.helpers.shared_caldav import SharedServer
from tests.helpers.threaded_server import ask_upstream, forwarding_server, passed_on, send_answer


class CueingServer:
    def __init__(self, shared: SharedServer) -> None:
        self.shared = shared
        self.kind = shared.kind
        self.username, self.password = shared.username, shared.password
        self.upstream_port = int(shared.info["port"])
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._cues: list[dict[str, Any]] = []
        self.server = forwarding_server(self._forward)
        self.port = int(self.server.server_address[1])
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- DavServer's face --------------------------------------------------------------------------

    @property
    def home(self) -> str:
        """The calendar home, through the proxy."""
        return f"http://127.0.0.1:{self.port}{urlsplit(self.shared.home).path}"

    def new_calendar(self, name: str | None = None) -> str:
        """A new calendar in the home, with display name `name` when given."""
        url = f"{self.home.rstrip('/')}/{uuid.uuid4().hex[:12]}/"
        body = b""
        if name is not None:
            body = (
                '<?xml version="1.0" encoding="utf-8"?><c:mkcalendar xmlns:d="DAV:" '
                'xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>'
                f"<d:displayname>{name}</d:displayname></d:prop></d:set></c:mkcalendar>"
            ).encode()
        self.request("MKCALENDAR", url, body, {"Content-Type": "application/xml"} if body else None)
        return url

    def request(self, method: str, url: str, body: bytes = b"", headers: dict[str, str] | None = None) -> int:
        """A raw request as another client (the owner's app), through the proxy: counted."""
        sent = Request(url, data=body or None, method=method, headers={**self._auth(), **(headers or {})})
        with urlopen(sent, timeout=30) as answer:
            return int(answer.status)

    def counts(self) -> Counter[str]:
        with self._lock:
            return Counter(self._counts)

    def cue(self, cues: list[Cue]) -> None:
        with self._lock:
            if cues:
                self._cues.extend(asdict(c) for c in cues)
            else:
                self._cues.clear()

    # -- the proxy -----------------------------------------------------------------------------------

    def _auth(self) -> dict[str, str]:
        token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        return {"Authorization": f"Basic {token}"}

    def _forward(self, handler: BaseHTTPRequestHandler) -> None:
        method, path = handler.command, handler.path
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        name = unquote(urlsplit(path).path).rstrip("/").rsplit("/", 1)[-1]
        on = (method, f"{method} Depth: {handler.headers.get('Depth')}")
        with self._lock:
            self._counts[method] += 1
            cue = next((c for c in self._cues if c["on"] in on and c["name"] == name), None)
            if cue is not None:
                self._cues.remove(cue)
        if cue is not None and cue["then"] == "answer":
            send_answer(handler, cue["status"], "Answered On Cue", list(cue["headers"]), cue["body"].encode())
            return
        if cue is not None and cue["then"] == "owner_put":
            ask_upstream(
                self.upstream_port, "PUT", path, cue["body"].encode(), {**self._auth(), "Content-Type": "text/calendar"}
            )
        elif cue is not None and cue["then"] == "owner_delete":
            ask_upstream(self.upstream_port, "DELETE", path, b"", self._auth())
        headers = dict(passed_on(handler.headers.items()))
        answer, data = ask_upstream(self.upstream_port, method, path, body, headers)
        with self._lock:
            self._counts[f"status {answer.status}"] += 1
        kept = passed_on(answer.getheaders())
        if cue is not None and cue["then"] in ("weak_etag", "drop_etag"):
            etags = [v for k, v in kept if k.lower() == "etag"]
            kept = [(k, v) for k, v in kept if k.lower() != "etag"]
            if cue["then"] == "weak_etag":
                kept += [("ETag", "W/" + v) for v in etags]
        if cue is not None and cue["then"] == "lose_answer":
            # Done upstream, but the client never hears of it.
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        send_answer(handler, answer.status, answer.reason, kept, data)


def cueing(request: pytest.FixtureRequest, kind: str) -> CueingServer:
    """The shared server `kind` (a session fixture) behind its proxy, made on first use and kept in
    the session fixture `cueing_servers` (tests/server/caldav/conftest.py)."""
    made: dict[str, CueingServer] = request.getfixturevalue("cueing_servers")
    if kind not in made:
        made[kind] = CueingServer(request.getfixturevalue(kind))
    return made[kind]
