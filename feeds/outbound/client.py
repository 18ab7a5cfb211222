"""An httpx client that connects only to checked addresses and keeps one deadline.

The check runs in httpcore's network backend, at connect time, on the host name of the URL: the
address connected to is one `checked_addresses` returned, with no second lookup (DNS rebinding has
nothing to answer). The URL is not rewritten, so the Host header, the TLS server name and the
certificate check are the host name's, and the connection pool never shares a connection between
two host names.
"""

from __future__ import annotations

import functools
import ssl
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import httpcore
import httpx

from feeds.errors import AddressRefused, DeadlineExceeded, FetchError
from feeds.outbound.addresses import Policy, checked_addresses

T = TypeVar("T")


class _Clock:
    """A deadline: every network wait is cut to what is left of it."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.end = None if seconds is None else time.monotonic() + seconds

    def limit(self, timeout: float | None) -> float | None:
        if self.end is None:
            return timeout
        left = self.end - time.monotonic()
        # Nothing left is the same as overdue (`< 0` would differ only at exactly zero, which the
        # nanosecond monotonic clock practically never lands on). A socket timeout cut to `left` fires strictly
        # past our end (the socket's own deadline is set after ours), so `run` sees left < 0.
        if left <= 0:
            raise DeadlineExceeded(f"took longer than the {self.seconds:g} s deadline")
        return left if timeout is None else min(timeout, left)

    def run(self, call: Callable[[float | None], T], timeout: float | None) -> T:
        try:
            return call(self.limit(timeout))
        except httpcore.TimeoutException:
            self.limit(None)  # a timeout cut short by the deadline is reported as the deadline
            raise


class _Stream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream, clock: _Clock) -> None:
        self._inner, self._clock = inner, clock

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._clock.run(lambda t: self._inner.read(max_bytes, t), timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._clock.run(lambda t: self._inner.write(buffer, t), timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        tls = self._clock.run(lambda t: self._inner.start_tls(ssl_context, server_hostname, t), timeout)
        return _Stream(tls, self._clock)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, policy: Policy, clock: _Clock) -> None:
        self._policy, self._clock, self._inner = policy, clock, httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        # checked_addresses returns at least one address or raises, so this first value is always
        # replaced before it is raised. local_address and
        # socket_options are httpcore's, passed through (confcal sets neither: None either way).
        # The port given to checked_addresses does not change the addresses (see system_resolver).
        failure: Exception = FetchError(f"cannot connect to {host}")
        for address in checked_addresses(host, port, self._policy):
            try:
                stream = self._clock.run(
                    lambda t: self._inner.connect_tcp(str(address), port, t, local_address, socket_options), timeout
                )
            except httpcore.ConnectError as exc:
                failure = exc  # the next checked address, if any
                continue
            return _Stream(stream, self._clock)
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise AddressRefused("a Unix socket is not an outbound address")

    def sleep(self, seconds: float) -> None:
        # httpcore sleeps only between connect retries, and confcal asks for none (retries=0):
        # no test reaches this line.
        time.sleep(seconds)


@functools.cache
def _context(verify: bool) -> ssl.SSLContext:
    """httpx's default context (certifi's roots), built once: loading the roots is costly."""
    return httpx.create_ssl_context(verify=verify, trust_env=False)


def guarded_client(policy: Policy = Policy(), *, deadline: float | None = None, **options: Any) -> httpx.Client:
    """An httpx client whose every connection (redirect hops included) passes the address rules and
    goes to the address that was checked. `deadline` (seconds from now) bounds everything the client
    does, so make one client per job. Environment proxies are ignored: a proxy would connect for us.
    Errors of the guard are FetchError subclasses, raised through httpx unchanged."""
    # A caller's own SSLContext is used as it is; only the two boolean policies share a cached one.
    context = policy.verify if isinstance(policy.verify, ssl.SSLContext) else _context(policy.verify)
    # trust_env=False on the transport and the client: with an explicit transport httpx 0.28 reads
    # no proxy from the environment whatever the client's flag says, and with an SSLContext given
    # the transport reads no certificate variables; False on both keeps it so if either changes.
    # The transport's own pool is replaced below, so its `verify` is never used; passed so the
    # two agree.
    transport = httpx.HTTPTransport(verify=context, trust_env=False)
    # httpx has no public hook for httpcore's network backend (encode/httpx discussion #3180), so the
    # pool it built is replaced by one with our backend. test_outbound's rebinding and refusal
    # tests fail if this stops taking effect.
    transport._pool = httpcore.ConnectionPool(
        ssl_context=context,
        network_backend=_Backend(policy, _Clock(deadline)),
    )
    options.setdefault("timeout", httpx.Timeout(policy.timeout))
    return httpx.Client(transport=transport, trust_env=False, **options)
