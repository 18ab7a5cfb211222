"""The address rules over every class of address, fed through the guard's resolver seam: the
answers a DNS server could give (private, mixed, failing) without running one."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence

import pytest

from feeds.errors import AddressRefused, FetchError
from feeds.outbound import Policy, checked_addresses, system_resolver


def answering(*addresses: str) -> Policy:
    def resolver(host: str, port: int) -> Sequence[str]:
        return addresses

    return Policy(resolver=resolver)


REFUSED = [
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.254", "private"),
    ("192.168.1.1", "private"),
    ("100.64.0.1", "shared (carrier-grade NAT)"),
    ("100.127.255.254", "shared (carrier-grade NAT)"),
    ("169.254.169.254", "link-local"),
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("0.0.0.0", "unspecified"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    ("192.0.2.1", "reserved"),  # documentation (TEST-NET-1), from Python's registry
    ("198.18.0.1", "reserved"),  # benchmarking
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("fc00::1", "unique local"),
    ("fd12:3456:789a::1", "unique local"),
    ("fe80::1", "link-local"),
    ("fec0::1", "site-local, deprecated"),
    ("ff02::1", "multicast"),
    ("ff0e::1", "multicast"),
    ("::ffff:127.0.0.1", "loopback IPv4 in IPv6"),
    ("::ffff:10.0.0.1", "private IPv4 in IPv6"),
    ("::ffff:169.254.169.254", "link-local IPv4 in IPv6"),
    ("::127.0.0.1", "IPv4-compatible, deprecated"),
    ("::8.8.8.8", "IPv4-compatible, deprecated"),
    ("2002:7f00:1::1", "loopback IPv4 in IPv6"),  # 6to4 of 127.0.0.1
    ("2002:a00:1::", "private IPv4 in IPv6"),  # 6to4 of 10.0.0.1
    ("64:ff9b::a9fe:a9fe", "link-local IPv4 in IPv6"),  # NAT64 of 169.254.169.254
    ("64:ff9b:1::1", "local-use NAT64"),
    ("2001:db8::1", "reserved"),  # documentation
]


@pytest.mark.parametrize(("address", "label"), REFUSED)
def test_every_non_public_class_is_refused(address: str, label: str) -> None:
    with pytest.raises(AddressRefused) as caught:
        checked_addresses("cal.example.org", 443, answering(address))

    shown = ipaddress.ip_address(address)
    assert str(caught.value) == (
        f"host cal.example.org is a private address ({shown}: {label}); allow private sources explicitly to fetch it"
    )


@pytest.mark.parametrize(
    "address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:808:808::1"]
)
def test_public_addresses_pass(address: str) -> None:
    assert checked_addresses("cal.example.org", 443, answering(address)) == (ipaddress.ip_address(address),)


@pytest.mark.parametrize(
    "answers",
    [
        ("93.184.215.14", "10.0.0.7"),
        ("10.0.0.7", "93.184.215.14"),
        ("2606:4700:4700::1111", "93.184.215.14", "10.0.0.7"),
    ],
)
def test_one_private_answer_among_public_ones_refuses_the_host(answers: tuple[str, ...]) -> None:
    with pytest.raises(AddressRefused) as caught:
        checked_addresses("mixed.example.org", 80, answering(*answers))

    assert str(caught.value).startswith("host mixed.example.org is a private address (10.0.0.7: private)")


def test_a_name_that_does_not_resolve_is_a_clear_error() -> None:
    def failing(host: str, port: int) -> Sequence[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    with pytest.raises(FetchError) as caught:
        checked_addresses("nowhere.example.org", 80, Policy(resolver=failing))

    assert str(caught.value) == "cannot resolve host nowhere.example.org: Name or service not known"


def test_no_answer_is_a_clear_error() -> None:
    with pytest.raises(FetchError) as caught:
        checked_addresses("empty.example.org", 80, answering())

    assert str(caught.value) == "cannot resolve host empty.example.org: no address"


def test_allow_private_lifts_every_rule() -> None:
    policy = Policy(allow_private=True, resolver=answering("127.0.0.1", "10.0.0.1").resolver)

    assert checked_addresses("intranet", 80, policy) == (
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("10.0.0.1"),
    )


def test_allowed_networks_lift_the_rules_for_those_networks_only() -> None:
    allowed = (ipaddress.ip_network("10.1.0.0/16"),)
    inside = Policy(allowed=allowed, resolver=answering("10.1.2.3").resolver)
    outside = Policy(allowed=allowed, resolver=answering("10.1.2.3", "10.2.0.1").resolver)

    assert checked_addresses("intranet", 80, inside) == (ipaddress.ip_address("10.1.2.3"),)
    with pytest.raises(AddressRefused, match=r"\(10\.2\.0\.1: private\)"):
        checked_addresses("intranet", 80, outside)


def test_the_system_resolver_answers_a_literal_with_itself() -> None:
    assert system_resolver("127.0.0.1", 80) == ["127.0.0.1"]


def test_a_resolver_failure_without_a_reason_or_of_another_kind_is_named_as_it_is() -> None:
    def bare(host: str, port: int) -> Sequence[str]:
        raise OSError()

    def idna(host: str, port: int) -> Sequence[str]:
        raise UnicodeError("label too long")

    with pytest.raises(FetchError) as without_reason:
        checked_addresses("a.example.org", 80, Policy(resolver=bare))
    with pytest.raises(FetchError) as bad_name:
        checked_addresses("b.example.org", 80, Policy(resolver=idna))

    assert str(without_reason.value) == "cannot resolve host a.example.org: "
    assert str(bad_name.value) == "cannot resolve host b.example.org: label too long"
