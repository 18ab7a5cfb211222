"""Which addresses an outbound request may reach, and the one lookup that decides it.

The classes refused follow the IANA IPv4 and IPv6 special-purpose address registries (RFC 6890):
nothing that is not globally reachable, plus multicast, which Python's `is_global` lets through.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from feeds.errors import AddressRefused, FetchError
from feeds.outbound.urls import MAX_BYTES

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
# host, port -> addresses as text; raises OSError when the name does not resolve. The seam through
# which tests give answers a public DNS would (mixed, rebinding, failing) without a DNS server.
Resolver = Callable[[str, int], Sequence[str]]


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to for a TCP connection, in the system's preference order."""
    # The port and SOCK_STREAM do not change which addresses come back (a numeric port; the
    # duplicates other socket types add are dropped below). They are passed so the lookup is
    # the one a TCP connect would make.
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class Policy:
    """What one client may do. `allow_private` lifts the address rules (an operator's explicit
    choice); `allowed` lifts them for some networks only (say, an intranet schedule server)."""

    allow_private: bool = False
    allowed: tuple[IPNetwork, ...] = ()
    resolver: Resolver = system_resolver
    timeout: float = 20.0  # one connect, read or write
    deadline: float = 60.0  # the whole fetch, redirects included
    max_bytes: int = MAX_BYTES
    max_redirects: int = 5
    verify: ssl.SSLContext | bool = True


_RULES = tuple(
    (ipaddress.ip_network(net), label)
    for net, label in (
        ("0.0.0.0/8", "unspecified"),
        ("10.0.0.0/8", "private"),
        ("100.64.0.0/10", "shared (carrier-grade NAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private"),
        ("192.168.0.0/16", "private"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved"),
        ("::/128", "unspecified"),
        ("::1/128", "loopback"),
        ("::/96", "IPv4-compatible, deprecated"),  # RFC 4291 §2.5.5.1: ::127.0.0.1 and the like
        ("64:ff9b:1::/48", "local-use NAT64"),
        ("fc00::/7", "unique local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local, deprecated"),
        ("ff00::/8", "multicast"),
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the last 32 bits are an IPv4 address


def refusal(address: IPAddress) -> str | None:
    """The class that makes `address` unfit for an outbound request, or None for a public address.
    IPv6 forms that carry an IPv4 address (mapped, 6to4, NAT64) are judged by that address."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            inner = refusal(embedded)
            return None if inner is None else f"{inner} IPv4 in IPv6"
    for network, label in _RULES:
        if address.version == network.version and address in network:
            return label
    # Documentation, benchmarking and protocol-assignment ranges, and whatever Python adds later.
    return None if address.is_global else "reserved"


def checked_addresses(host: str, port: int, policy: Policy) -> tuple[IPAddress, ...]:
    """Resolve `host` once and return its addresses if every one may be reached; raises
    AddressRefused naming the first refused one, or FetchError when the name does not resolve."""
    try:
        # The port cannot change the addresses (see system_resolver); a TCP connect's lookup passes it.
        answers = policy.resolver(host, port)
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise FetchError(f"cannot resolve host {host}: {reason}") from None
    addresses = tuple(ipaddress.ip_address(answer) for answer in answers)
    if not addresses:
        raise FetchError(f"cannot resolve host {host}: no address")
    if policy.allow_private:
        return addresses
    for address in addresses:
        label = refusal(address)
        if label is not None and not any(address in net for net in policy.allowed if net.version == address.version):
            raise AddressRefused(
                f"host {host} is a private address ({address}: {label}); allow private sources explicitly to fetch it"
            )
    return addresses
