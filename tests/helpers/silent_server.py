"""A listener that takes a connection and never answers: what a hung CalDAV server looks like."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def silent_server() -> Iterator[str]:
    """A calendar URL on a listener that accepts connections and never answers."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(5)
        accepted: list[socket.socket] = []

        def accept() -> None:
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                pass

        thread = threading.Thread(target=accept)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.getsockname()[1]}/alice/cal/"
        finally:
            thread.join()
            for conn in accepted:
                conn.close()
