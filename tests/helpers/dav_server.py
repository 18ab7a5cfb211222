"""A real CalDAV server (Radicale, Xandikos or DAViCal) on 127.0.0.1, run by the tests as a subprocess.

    python tests/helpers/dav_server.py radicale|xandikos|davical ROOT --user U --password P [--port N] [--die-after-puts N]

It prints the port on stdout once it listens. A thin WSGI layer in front of the real server:
- counts requests per method, and answers per status as "status 401" and the like, served at
  GET /__counts (JSON) without auth, so tests can assert "no PUT, no DELETE" or "no 401" on the
  server side, and PUTs per Content-Type as "PUT as text/calendar";
- for Xandikos, which leaves authentication to its front end, checks HTTP Basic credentials
  against an htpasswd file with Xandikos' own htpasswd module (Radicale checks its own);
- with --busy-puts N, the first N PUTs are refused with 429 (Retry-After: 0) or 503, as an
  overloaded server would;
- with --die-after-puts N, the process exits right after the N-th PUT has been stored and
  before answering it: the hardest kind of crash for a client (the write took effect, the
  answer never came);
- cues, POSTed as JSON to /__cue without auth, make the server misbehave on cue, once each, on
  the next request of a method to a resource name: `owner_put` / `owner_delete` first make the
  owner's own write (no preconditions, as another calendar app would) and then serve the request,
  so the client meets an edit made between its listing and its write; `lose_answer` serves the
  request and then drops the connection without answering (the write took effect unseen);
  `weak_etag` / `drop_etag` serve it and answer with the ETag header made weak (`W/"..."`) or
  left out, as a server that altered the stored body must (RFC 4791 section 5.3.4); `answer`
  does not pass the request on and answers it with the cue's status, headers and body instead
  (a refusal, a server error, a Retry-After), as a server other than this one might.
  POST /__cue with an empty list clears the cues left over by a test.
"""

from __future__ import annotations

import argparse
import atexit
import base64
import hashlib
import io
import json
import os
import signal
import socket
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import unquote
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class PostedCue(TypedDict):
    """A cue as POSTed to /__cue: push_helpers.Cue's fields, as JSON."""

    on: str  # METHOD, or "METHOD Depth: N"
    name: str
    then: str
    body: str  # ICS, or the answer's body
    status: int
    headers: list[list[str]]  # [name, value] pairs


def radicale_app(root: Path, user: str, password: str) -> Wsgi:
    from radicale import config
    from radicale.app import Application

    (root / "users").write_text(f"{user}:{password}\n")
    (root / "radicale.conf").write_text(
        "[auth]\ntype = htpasswd\n"
        f"htpasswd_filename = {root / 'users'}\nhtpasswd_encryption = plain\n"
        "delay = 0\n"  # no brute-force delay after a wrong password: the tests make many
        "[rights]\ntype = owner_only\n"
        f"[storage]\nfilesystem_folder = {root / 'collections'}\n"
        "[logging]\nlevel = warning\n"
    )
    configuration = config.load([(str(root / "radicale.conf"), False)])
    return Application(configuration)


def xandikos_app(root: Path, user: str, password: str) -> Wsgi:
    from xandikos import htpasswd
    from xandikos.web import SingleUserFilesystemBackend, XandikosApp

    backend = SingleUserFilesystemBackend(str(root / "store"))
    principal = f"/{user}/"
    # Xandikos is untyped.
    if not backend.get_resource(principal):  # type: ignore[no-untyped-call]
        backend.create_principal(principal, create_defaults=False)  # type: ignore[no-untyped-call]
    backend._mark_as_principal(principal)  # type: ignore[no-untyped-call]
    app: Wsgi = XandikosApp(backend, principal)
    digest = base64.b64encode(hashlib.sha1(password.encode()).digest()).decode()
    (root / "users").write_text(f"{user}:{{SHA}}{digest}\n")
    users = htpasswd.HtpasswdFile(str(root / "users"))

    def basic_auth(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        header = environ.get("HTTP_AUTHORIZATION", "")
        if header.startswith("Basic "):
            name, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            if users.check(name, secret):
                environ["REMOTE_USER"] = name
                return app(environ, start_response)
        start_response(
            "401 Unauthorized",
            [("WWW-Authenticate", 'Basic realm="xandikos"'), ("Content-Length", "0")],
        )
        return [b""]

    return basic_auth


def _json_answer(start_response: Callable[..., Any], value: Any) -> list[bytes]:
    body = json.dumps(value).encode()
    start_response(
        "200 OK",
        [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
    )
    return [body]


def _owner_write(app: Wsgi, environ: dict[str, Any], method: str, body: bytes) -> str:
    """The owner's write to the requested resource, with the same credentials, no preconditions."""
    owner = {k: v for k, v in environ.items() if k not in ("HTTP_IF_MATCH", "HTTP_IF_NONE_MATCH")}
    owner.update(
        REQUEST_METHOD=method,
        CONTENT_LENGTH=str(len(body)),
        CONTENT_TYPE="text/calendar; charset=utf-8",
    )
    owner["wsgi.input"] = io.BytesIO(body)
    status: list[str] = []

    def keep(answer: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
        status.append(answer)
        return lambda _data: None

    for _ in app(owner, keep):
        pass
    return status[0]


def counting(app: Wsgi, die_after_puts: int | None, busy_puts: int = 0) -> Wsgi:
    counts: Counter[str] = Counter()
    busy = [busy_puts]
    cues: list[PostedCue] = []

    def wrapper(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        method = environ["REQUEST_METHOD"]
        if method == "GET" and environ.get("PATH_INFO") == "/__counts":
            return _json_answer(start_response, counts)
        if method == "POST" and environ.get("PATH_INFO") == "/__cue":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            new = json.loads(environ["wsgi.input"].read(length) or b"[]")
            if new:
                cues.extend(new)
            else:
                cues.clear()
            return _json_answer(start_response, cues)
        counts[method] += 1
        if method == "PUT":  # as "PUT as text/calendar; charset=utf-8"
            counts[f"PUT as {environ.get('CONTENT_TYPE', '')}"] += 1
        if method == "PUT" and busy[0] > 0:  # overloaded: 429 with Retry-After, then a bare 503
            busy[0] -= 1
            if busy[0] % 2:
                start_response(
                    "429 Too Many Requests",
                    [("Retry-After", "0"), ("Content-Length", "0")],
                )
            else:
                start_response("503 Service Unavailable", [("Content-Length", "0")])
            return [b""]
        # wsgiref hands over the raw socket; Xandikos reads its input to EOF, so bound it.
        length = int(environ.get("CONTENT_LENGTH") or 0)
        environ["wsgi.input"] = io.BytesIO(environ["wsgi.input"].read(length))
        name = unquote(environ.get("PATH_INFO", "")).rstrip("/").rsplit("/", 1)[-1]
        # A cue is "on" a method, or on a method at one Depth ("PROPFIND Depth: 1", the listing,
        # apart from the Depth 0 check of the calendar itself).
        on = (method, f"{method} Depth: {environ.get('HTTP_DEPTH')}")
        cue = next((c for c in cues if c["on"] in on and c["name"] == name), None)
        if cue is not None and cue["then"] == "answer":
            cues.remove(cue)
            body = cue["body"].encode()
            headers = [(k, v) for k, v in cue["headers"]] + [("Content-Length", str(len(body)))]
            counts[f"status {cue['status']}"] += 1
            start_response(f"{cue['status']} Answered On Cue", headers)
            return [body]
        if cue is not None:
            cues.remove(cue)
            if cue["then"] == "owner_put":
                _owner_write(app, environ, "PUT", cue["body"].encode())
            elif cue["then"] == "owner_delete":
                _owner_write(app, environ, "DELETE", b"")
        captured: list[Any] = []

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
            captured[:] = [status, headers]
            return lambda _data: None

        body_parts = list(app(environ, capture))
        counts[f"status {captured[0].split()[0]}"] += 1
        if method == "PUT" and die_after_puts is not None and counts["PUT"] >= die_after_puts:
            os._exit(3)  # stored, never answered
        if cue is not None and cue["then"] in ("weak_etag", "drop_etag"):
            status, headers = captured
            kept = [(k, v) for k, v in headers if k.lower() != "etag"]
            if cue["then"] == "weak_etag":
                kept += [("ETag", "W/" + v) for k, v in headers if k.lower() == "etag"]
            captured[:] = [status, kept]
        if cue is not None and cue["then"] == "lose_answer":
            # Done, but the client never hears of it: close the socket under the handler.
            environ["confcal.connection"].shutdown(socket.SHUT_RDWR)
        start_response(*captured)
        return body_parts

    return wrapper


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def get_environ(self) -> dict[str, Any]:
        environ = super().get_environ()
        environ["confcal.connection"] = self.connection  # for the lose_answer cue
        return environ


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["radicale", "xandikos", "davical"])
    parser.add_argument("root", type=Path)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--die-after-puts", type=int)
    parser.add_argument("--busy-puts", type=int, default=0, help="answer the first N PUTs 429/503")
    args = parser.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)

    # DavServer.stop() terminates us: exit normally, so DAViCal's PostgreSQL and PHP stop too.
    # Not sys.exit: wsgiref's handler swallows exceptions raised mid-request, so the process could
    # outlive its stop(); run the atexit cleanups (DAViCal's) and leave at once, as before.
    def stop(*_: object) -> None:
        atexit._run_exitfuncs()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    if args.kind == "davical":
        from tests.helpers.davical import davical_app

        factory = davical_app
    else:
        factory = radicale_app if args.kind == "radicale" else xandikos_app
    app = counting(
        factory(args.root, args.user, args.password),
        args.die_after_puts,
        args.busy_puts,
    )
    server = make_server("127.0.0.1", args.port, app, server_class=WSGIServer, handler_class=QuietHandler)
    print(server.server_port, flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
