"""The guarded client's waits and connections (feeds/outbound/client.py), on real loopback sockets.

Every wait is cut to the policy's timeout, not only to the overall deadline: servers stall on cue
in the connect (a listener whose accept queue is full drops the SYN), in the TLS handshake (it
accepts the connection and never answers the ClientHello) and in a write (it never reads the
request body). The deadline is long, so a wait cut only by the deadline would end in
DeadlineExceeded instead of the timeout the policy names."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feeds.errors import AddressRefused, DeadlineExceeded, FetchError
from feeds.outbound import Policy, fetch, guarded_client
from feeds.outbound.client import _Backend, _Clock

HOST = "127.0.0.1"
POLICY = Policy(allowed=(ipaddress.ip_network(f"{HOST}/32"),), timeout=0.3, deadline=5.0)
# A stalling server gives up after this long, so a client that lost every timeout (a mutant) fails
# with another error instead of hanging the run. Never reached by a working client.
GIVE_UP = 2 * POLICY.deadline


class Silent:
    """Accepts connections and holds them open without reading or writing a byte, until closed
    or GIVE_UP seconds have passed."""

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
        end = time.monotonic() + GIVE_UP
        while not self.stopped.is_set() and time.monotonic() < end:
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.accepted.append(connection)
        for connection in self.accepted:
            connection.close()

    def close(self) -> None:
        self.stopped.set()
        self.thread.join()
        self.listener.close()


@pytest.fixture
def silent() -> Iterator[Silent]:
    server = Silent()
    yield server
    server.close()


def test_a_stalled_connect_is_cut_to_the_policys_timeout() -> None:
    # Linux drops a SYN while the listener's accept queue is full: with a backlog of 0 and one
    # connection never accepted, the next connect waits for an answer that does not come.
    listener = socket.socket()
    listener.bind((HOST, 0))
    listener.listen(0)
    url = f"http://{HOST}:{listener.getsockname()[1]}/page"
    queued = socket.create_connection(listener.getsockname())
    give_up = threading.Timer(GIVE_UP, listener.close)  # then the SYN's next retry is refused
    give_up.start()

    try:
        with pytest.raises(FetchError) as caught:
            fetch(url, POLICY)
    finally:
        give_up.cancel()
        queued.close()
        listener.close()

    assert str(caught.value) == f"{url}: cannot be fetched: timed out"


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


def test_a_kept_alive_connection_the_server_closed_is_not_reused() -> None:
    # The pool asks the stream whether an idle connection became readable (the server's close): a
    # stream that cannot answer would have the next request sent into a closed connection.
    listener = socket.create_server((HOST, 0))
    url = f"http://{HOST}:{listener.getsockname()[1]}/page"
    closed = threading.Event()

    def serve() -> None:
        for body in (b"first", b"second"):
            connection, _ = listener.accept()
            with connection:
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            closed.set()  # after the close: the FIN is on its way before the client asks again

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        with guarded_client(POLICY, deadline=POLICY.deadline) as client:
            first = client.get(url).content
            closed.wait()
            second = client.get(url).content
    finally:
        thread.join(timeout=POLICY.deadline)
        listener.close()

    assert (first, second) == (b"first", b"second")


def test_the_network_backend_refuses_a_unix_socket(tmp_path: Path) -> None:
    # guarded_client never asks for one (its pool has no `uds`), but a pool that did would connect
    # to a local service the address rules cannot see; the backend itself refuses.
    path = tmp_path / "service.sock"
    with socket.socket(socket.AF_UNIX) as service:
        service.bind(str(path))
        service.listen()
        backend = _Backend(POLICY, _Clock(POLICY.deadline))

        with pytest.raises(AddressRefused) as caught:
            backend.connect_unix_socket(str(path), timeout=POLICY.timeout)

    assert str(caught.value) == "a Unix socket is not an outbound address"
