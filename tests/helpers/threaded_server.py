"""A test's own HTTP server (http.server, socketserver) answering from a thread of its own."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from socketserver import BaseServer


@contextmanager
def in_thread(server: BaseServer) -> Iterator[None]:
    """`server` answers while the block runs; then it stops and its socket is closed."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
