"""The HTTP session under `caldav.DAVClient`: the outbound guard's rules on niquests.

caldav speaks CalDAV through a niquests session; this one keeps the promises of
`feeds.outbound` (which does the same for httpx):
- every connection goes to an address `checked_addresses` returned for the URL's host: the
  session's resolver is the guard, so there is no second lookup for DNS rebinding to answer
  differently; the URL keeps its host name, so Host, SNI and the certificate check are the name's;
- no proxy, .netrc or certificate variable from the environment (`trust_env` off);
- no redirect is followed here: a hop is the caller's decision, checked again as a new request;
- no automatic retry (a write repeated blindly could land twice), no HTTP/3 (QUIC upgrades would
  open UDP connections the guard does not see), no OCSP requests to third parties;
- every answer is read up to a size cap while it streams;
- one deadline for the session: each request's timeout is cut to what is left, and when the
  deadline passes a watchdog shuts the open sockets, so a server dripping one byte at a time
  cannot hold a run past it.
"""

from __future__ import annotations

import socket
import threading
import time
import weakref
from typing import Any

import niquests
from urllib3_future.contrib.resolver.protocols import BaseResolver, ProtocolResolver

from feeds.errors import DeadlineExceeded, FetchError
from feeds.outbound import Policy, checked_addresses, collect


class _Deadline:
    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.end = None if seconds is None else time.monotonic() + seconds

    def left(self) -> float | None:
        return None if self.end is None else self.end - time.monotonic()

    def passed(self) -> bool:
        left = self.left()
        return left is not None and left <= 0

    def error(self) -> DeadlineExceeded:
        return DeadlineExceeded(f"took longer than the {self.seconds:g} s deadline")


class GuardResolver(BaseResolver):
    """Resolves through the outbound guard: only addresses the policy allows, each looked up once
    per connection. A refusal is kept in `refused`, since urllib3 reports a failed lookup as a
    connection error of its own and the caller must tell the two apart."""

    protocol = ProtocolResolver.CUSTOM
    implementation = "confcal-guard"

    def __init__(self, policy: Policy, deadline: _Deadline) -> None:
        super().__init__(None)
        self._policy, self._deadline = policy, deadline
        self._open = True
        self.refused: FetchError | None = None
        self.sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()

    def recycle(self) -> BaseResolver:
        return self

    def close(self) -> None:
        self._open = False

    def is_available(self) -> bool:
        return self._open

    def getaddrinfo(  # type: ignore[override]
        self,
        host: bytes | str | None,
        port: str | int | None,
        family: socket.AddressFamily,
        type: socket.SocketKind,
        proto: int = 0,
        flags: int = 0,
        *,
        quic_upgrade_via_dns_rr: bool = False,
    ) -> list[tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple[Any, ...]]]:
        name = host.decode() if isinstance(host, bytes) else str(host or "")
        number = int(port or 0)
        try:
            addresses = checked_addresses(name, number, self._policy)
        except FetchError as exc:
            self.refused = exc
            raise OSError(str(exc)) from None
        out: list[tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple[Any, ...]]] = []
        for address in addresses:
            if address.version == 4 and family in (socket.AF_UNSPEC, socket.AF_INET):
                out.append((socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (str(address), number)))
            elif address.version == 6 and family in (socket.AF_UNSPEC, socket.AF_INET6):
                out.append((socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (str(address), number, 0, 0)))
        return out

    def create_connection(self, address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        if self._deadline.passed():
            raise OSError(str(self._deadline.error()))
        sock = super().create_connection(address, *args, **kwargs)
        self.sockets.add(sock)
        return sock


class GuardedSession(niquests.Session):
    """A niquests session bound to one policy and one deadline: make one per run."""

    def __init__(self, policy: Policy, *, deadline: float | None, max_bytes: int) -> None:
        self._deadline = _Deadline(deadline)
        self.guard = GuardResolver(policy, self._deadline)
        super().__init__(
            resolver=self.guard,
            retries=0,
            disable_http3=True,
            revocation_configuration=None,
        )
        self.trust_env = False
        self._policy, self._max_bytes = policy, max_bytes
        self._watchdog: threading.Timer | None = None
        self.last: niquests.Response = niquests.Response()
        self.last_body = b""
        left = self._deadline.left()
        if left is not None:
            self._watchdog = threading.Timer(max(left, 0.0), self._expire)
            self._watchdog.daemon = True
            self._watchdog.start()

    def _expire(self) -> None:
        # A read blocked on a socket returns only when the socket is shut; closing it would not wake it.
        for sock in list(self.guard.sockets):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        super().close()

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> niquests.Response:
        left = self._deadline.left()
        if left is not None and left <= 0:
            raise self._deadline.error()
        timeout = self._policy.timeout if left is None else min(self._policy.timeout, left)
        kwargs.update(timeout=timeout, allow_redirects=False, stream=True, proxies=None)
        self.guard.refused = None
        try:
            response = super().request(method, url, *args, **kwargs)
            try:
                body = collect(response.iter_content(64 * 1024), self._max_bytes)
            finally:
                response.close()
        except niquests.exceptions.RequestException:
            if self.guard.refused is not None:
                raise self.guard.refused from None
            if self._deadline.passed():
                raise self._deadline.error() from None
            raise
        # niquests reads a streamed body once; what collect read is what its readers get.
        response._content = body
        response._content_consumed = True
        # The last answer as read off the wire, for callers whose client (caldav's) rewrites
        # the body's line ends before handing it on.
        self.last, self.last_body = response, body
        return response
