"""What clients that read slowly cost a server: `confcal serve` on a store, N clients asking for one
large document each and reading none of it, and the server's processes' resident set before,
while they wait and after they hang up; with the time `/healthz` takes meanwhile.

    python bench/slow_clients.py --db store.sqlite --clients 8 --clients 32 --path /feeds/all.ics

The store must hold a conference already (`bench/generate.py`, then `confcal ingest`). Nothing
here is a test: it prints figures.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import time
from pathlib import Path

from run import CONFCAL, ENV, _kib, _tree, free_port  # bench/, beside this script

# Long enough for the warm-up to end, and for the server to send all it will before a client reads.
HOLD = 5.0


def resident_mib(pid: int) -> float:
    return sum(_kib(f"/proc/{process}/status", "VmRSS") for process in _tree(pid)) / 1024


def wait_for(port: int, path: str, server: subprocess.Popen[bytes]) -> None:
    while True:
        if server.poll() is not None:
            raise SystemExit("confcal serve exited before answering")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=120) as probe:
                probe.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
                while probe.recv(1 << 20):
                    pass
            return
        except OSError:
            time.sleep(0.5)


def slow_clients(port: int, path: str, count: int) -> list[socket.socket]:
    """`count` connections that ask for `path` and then read only the status line."""
    clients = []
    for _ in range(count):
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(("127.0.0.1", port))
        client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n".encode())
        client.recv(100)
        clients.append(client)
    return clients


def healthz_seconds(port: int) -> float:
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as probe:
        probe.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        probe.recv(1000)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--clients", type=int, action="append", help="how many at once (repeatable)")
    parser.add_argument("--path", default="/feeds/all.ics")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [*CONFCAL, "serve", "--db", str(args.db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=ENV,
    )
    try:
        wait_for(port, args.path, server)
        time.sleep(3 * HOLD)  # the warm-up of the feeds, which the figures must not include
        for count in args.clients or [8]:
            before = resident_mib(server.pid)
            clients = slow_clients(port, args.path, count)
            time.sleep(HOLD)
            waiting = resident_mib(server.pid)
            health = healthz_seconds(port)
            for client in clients:
                client.close()
            time.sleep(HOLD)
            print(
                f"{count} slow clients of {args.path}: {before:.0f} MiB before, {waiting:.0f} MiB while they wait "
                f"({(waiting - before) / count:.1f} MiB each), {resident_mib(server.pid):.0f} MiB after; "
                f"/healthz meanwhile {health * 1000:.0f} ms"
            )
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
