"""The ceiling `confcal serve` is measured against: a minimal Starlette app that serves fixed bytes
by path, with a strong ETag and 304, and nothing else (issue 12).

    python bench/ceiling_app.py --server granian|uvicorn --port PORT BODIES_DIR

Every file under BODIES_DIR is served at its relative path (`feeds/all.ics`, `p/TOKEN.ics`; a path
ending in `/` as its `index.html`); the ETag is computed once at start-up, as any server that knows
its bytes would.
"""

from __future__ import annotations

import argparse
import hashlib
import os
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

BODIES: dict[str, tuple[bytes, str]] = {}


async def serve(request: Request) -> Response:
    path = request.url.path
    found = BODIES.get(path + "index.html" if path.endswith("/") else path)
    if found is None:
        return Response(b"not found\n", status_code=404)
    body, etag = found
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers={"etag": etag})
    return Response(body, media_type="text/calendar; charset=utf-8", headers={"etag": etag})


def load(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            body = path.read_bytes()
            BODIES["/" + path.relative_to(root).as_posix()] = (body, f'"{hashlib.sha256(body).hexdigest()[:32]}"')


app = Starlette(routes=[Route("/{path:path}", serve)])
if "CEILING_BODIES" in os.environ:
    load(Path(os.environ["CEILING_BODIES"]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", choices=["granian", "uvicorn"], default="granian")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("bodies", type=Path)
    args = parser.parse_args()
    os.environ["CEILING_BODIES"] = str(args.bodies)
    os.chdir(Path(__file__).parent)
    from asgi_servers import server_command  # here, not at the top: the server imports this module

    command = server_command(args.server, "ceiling_app:app", args.port, ["--log-level", "warning"])
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
