"""A calendar server that drips its answer, one byte at a time, never finishing it: each read
arrives within any per-read timeout, so only a client's overall deadline ends the request."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

ANSWER = b"HTTP/1.1 207 Multi-Status\r\nContent-Type: application/xml\r\nContent-Length: 100000\r\n\r\n<"


@dataclass
class Dripping:
    url: str
    accepted: list[socket.socket] = field(default_factory=list)


@contextmanager
def dripping_server(interval: float = 0.5) -> Iterator[Dripping]:
    stop = threading.Event()
    with socket.create_server(("127.0.0.1", 0), backlog=128) as server:
        server.settimeout(0.2)
        running = Dripping(f"http://127.0.0.1:{server.getsockname()[1]}/alice/cal/")

        def drip(conn: socket.socket) -> None:
            with conn:
                try:
                    conn.recv(65536)
                    for byte in ANSWER + b" " * 100000:
                        if stop.wait(interval):
                            return
                        conn.sendall(bytes([byte]))
                except OSError:
                    return  # the client gave up

        def accept() -> None:
            while not stop.is_set():
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    continue
                running.accepted.append(conn)
                threading.Thread(target=drip, args=(conn,), daemon=True).start()

        acceptor = threading.Thread(target=accept, daemon=True)
        acceptor.start()
        try:
            yield running
        finally:
            stop.set()
            acceptor.join()
