"""HTTPS through the guard: the connection goes to the checked address, while the TLS server name
(SNI) and the certificate check stay the URL's host name. A real TLS server on loopback with a
certificate from a throwaway CA (trustme)."""

from __future__ import annotations

import ipaddress
import ssl
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import trustme

from feeds.errors import FetchError
from feeds.outbound import Fetched, Policy, Validators, fetch
from tests.helpers.threaded_server import in_thread

HOST = "schedule.test"


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"tls {self.headers['Host']}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class TLSServer(ThreadingHTTPServer):
    def __init__(self, ca: trustme.CA, name: str) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.server_names: list[str | None] = []
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert(name).configure_cert(context)
        context.sni_callback = lambda sock, server_name, ctx: self.server_names.append(server_name)
        self.context = context

    def get_request(self) -> tuple[ssl.SSLSocket, object]:
        sock, address = super().get_request()
        return self.context.wrap_socket(sock, server_side=True), address


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


def serving(ca: trustme.CA, name: str) -> Iterator[TLSServer]:
    server = TLSServer(ca, name)
    with in_thread(server):
        yield server


@pytest.fixture
def for_host(ca: trustme.CA) -> Iterator[TLSServer]:
    yield from serving(ca, HOST)


@pytest.fixture
def for_other(ca: trustme.CA) -> Iterator[TLSServer]:
    yield from serving(ca, "other.test")


def resolver(host: str, port: int) -> Sequence[str]:
    return ["127.0.0.1"] if host == HOST else []


def policy(ca: trustme.CA) -> Policy:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return Policy(allowed=(ipaddress.ip_network("127.0.0.1/32"),), resolver=resolver, verify=context)


def test_https_keeps_the_server_name_and_checks_the_certificate_for_it(ca: trustme.CA, for_host: TLSServer) -> None:
    url = f"https://{HOST}:{for_host.server_address[1]}/page"

    result = fetch(url, policy(ca))

    assert result == Fetched(url, f"tls {HOST}:{for_host.server_address[1]}".encode(), Validators())
    assert for_host.server_names == [HOST]


def test_a_certificate_for_another_name_is_refused(ca: trustme.CA, for_other: TLSServer) -> None:
    url = f"https://{HOST}:{for_other.server_address[1]}/page"

    with pytest.raises(FetchError, match="CERTIFICATE_VERIFY_FAILED"):
        fetch(url, policy(ca))


def test_by_default_a_certificate_from_an_unknown_authority_is_refused(for_host: TLSServer) -> None:
    url = f"https://{HOST}:{for_host.server_address[1]}/page"
    default = Policy(allowed=(ipaddress.ip_network("127.0.0.1/32"),), resolver=resolver)  # verify=True

    with pytest.raises(FetchError, match="CERTIFICATE_VERIFY_FAILED"):
        fetch(url, default)


def test_verify_false_fetches_from_a_server_whose_certificate_cannot_be_checked(for_host: TLSServer) -> None:
    url = f"https://{HOST}:{for_host.server_address[1]}/page"
    unchecked = Policy(allowed=(ipaddress.ip_network("127.0.0.1/32"),), resolver=resolver, verify=False)

    result = fetch(url, unchecked)

    assert result == Fetched(url, f"tls {HOST}:{for_host.server_address[1]}".encode(), Validators())
