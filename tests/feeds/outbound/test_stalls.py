"""Every wait of the guarded client is cut to the policy's timeout, not only to the overall
deadline (feeds/outbound/client.py): a real loopback server that stalls on cue, once in the TLS
handshake (it accepts the connection and never answers the ClientHello) and once in a write (it
never reads the request body). The deadline is long, so a wait cut only by the deadline would end
in DeadlineExceeded instead of the timeout the policy names."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from feeds.errors import DeadlineExceeded, FetchError
from feeds.outbound import Policy, fetch, guarded_client

HOST = "127.0.0.1"
POLICY = Policy(allowed=(ipaddress.ip_network(f"{HOST}/32"),), timeout=0.3, deadline=5.0)


class Silent:
    """Accepts connections and holds them open without reading or writing a byte, until closed."""

    def __init__(self) -> None:
        self.listener = socket.create_server((HOST, 0))
        # A small receive buffer (inherited by accepted sockets), so a write fills it soon.
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.listener.settimeout(0.05)  # to see `stopped` (a close does not wake an accept)
        self.port = self.listener.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.accepted.append(connection)

    def close(self) -> None:
        self.stopped.set()
        self.thread.join()
        self.listener.close()
        for connection in self.accepted:
            connection.close()


@pytest.fixture
def silent() -> Iterator[Silent]:
    server = Silent()
    yield server
    server.close()


def test_a_stalled_tls_handshake_is_cut_to_the_policys_timeout(silent: Silent) -> None:
    url = f"https://{HOST}:{silent.port}/page"

    with pytest.raises(FetchError) as caught:
        fetch(url, POLICY)

    # httpx's ConnectTimeout, named by the fetch; not the 5 s deadline (a LimitExceeded).
    assert not isinstance(caught.value, DeadlineExceeded)
    assert str(caught.value).startswith(f"{url}: cannot be fetched: ")
    assert str(caught.value).endswith("The handshake operation timed out")  # after _ssl.c:LINE
    assert len(silent.accepted) == 1


def test_a_stalled_write_is_cut_to_the_policys_timeout(silent: Silent) -> None:
    # CalDAV PUTs go through the guarded client: a server that never reads the body must not hold
    # the write until the deadline. 16 MiB is more than the loopback socket buffers hold.
    body = b"x" * (16 * 1024 * 1024)

    with guarded_client(POLICY, deadline=POLICY.deadline) as client:
        with pytest.raises(httpx.WriteTimeout):
            client.put(f"http://{HOST}:{silent.port}/calendar/event.ics", content=body)

    assert len(silent.accepted) == 1
