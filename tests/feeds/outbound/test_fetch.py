"""The guard over real HTTP on loopback: redirects into refused addresses, DNS rebinding, the
overall deadline against a dripping server, size caps and conditional GET.

Two servers share one port: `outer` on 127.0.0.1 (allowed by the tests' policy) and `inner` on
127.0.0.2 (refused, as loopback). `inner` records every request it gets, so a test can show that a
refused address was never reached, not only that an error came back."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feeds.errors import AddressRefused, DeadlineExceeded, FetchError, LimitExceeded, SourceError
from feeds.outbound import Fetched, NotModified, Policy, Validators, fetch, guarded_client

OUTER = "127.0.0.1"
INNER = "127.0.0.2"
ALLOW_OUTER = (ipaddress.ip_network(f"{OUTER}/32"),)
ETAG = '"v1"'
LAST_MODIFIED = "Tue, 07 Apr 2026 09:00:00 GMT"


class Handler(BaseHTTPRequestHandler):
    server: Server

    def do_GET(self) -> None:
        self.server.seen.append((self.path, self.headers.get("Host", "")))
        self.server.asked.append(dict(self.headers))
        status, headers, body = self.server.answer(self)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Server(ThreadingHTTPServer):
    def __init__(self, host: str, port: int, name: str) -> None:
        super().__init__((host, port), Handler)
        self.name = name
        self.seen: list[tuple[str, str]] = []
        self.asked: list[dict[str, str]] = []  # each request's headers

    def answer(self, request: Handler) -> tuple[int, dict[str, str], bytes]:
        path, port = request.path, self.server_address[1]
        if path == "/to-inner":
            return 302, {"Location": f"http://{INNER}:{port}/secret"}, b""
        if path == "/to-inner-by-name":
            return 302, {"Location": f"http://inner.test:{port}/secret"}, b""
        if path == "/to-nowhere":
            return 302, {"Location": "http://[zz]/page"}, b""
        if path.startswith("/hops/"):  # /hops/N: N more redirects, then the page
            left = int(path.removeprefix("/hops/"))
            return (302, {"Location": f"/hops/{left - 1}"}, b"") if left else (200, {}, b"arrived")
        if path == "/to-ftp":
            return 302, {"Location": "ftp://files.example/schedule.ics"}, b""
        if path == "/missing":
            return 404, {}, b"no such page"
        if path == "/to-outer":
            return 301, {"Location": "/page"}, b""
        if path == "/unchanged":  # a 304 that repeats no validator
            return 304, {}, b""
        if path == "/validated":
            if (
                request.headers.get("If-None-Match") == ETAG
                or request.headers.get("If-Modified-Since") == LAST_MODIFIED
            ):
                return 304, {"ETag": ETAG}, b""
            return 200, {"ETag": ETAG, "Last-Modified": LAST_MODIFIED}, b"schedule v1"
        return 200, {}, f"{self.name} {path}".encode()


@dataclass
class Pair:
    port: int
    outer: Server
    inner: Server
    lookups: list[str] = field(default_factory=list)

    def url(self, path: str, host: str = OUTER) -> str:
        return f"http://{host}:{self.port}{path}"


@pytest.fixture
def pair() -> Iterator[Pair]:
    outer = Server(OUTER, 0, "outer")
    inner = Server(INNER, outer.server_address[1], "inner")
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (outer, inner)]
    for thread in threads:
        thread.start()
    yield Pair(outer.server_address[1], outer, inner)
    for server in (outer, inner):
        server.shutdown()
        server.server_close()


def names(pair: Pair, table: dict[str, Sequence[str]]) -> Policy:
    """A policy allowing `outer` whose resolver answers from `table` (and literals as themselves)."""

    def resolver(host: str, port: int) -> Sequence[str]:
        pair.lookups.append(host)
        return table.get(host, [host])

    return Policy(allowed=ALLOW_OUTER, resolver=resolver)


def test_an_allowed_host_is_fetched(pair: Pair) -> None:
    result = fetch(pair.url("/to-outer"), Policy(allowed=ALLOW_OUTER))

    assert result == Fetched(pair.url("/page"), b"outer /page", Validators())


@pytest.mark.parametrize(("path", "refused"), [("/to-inner", INNER), ("/to-inner-by-name", "inner.test")])
def test_a_redirect_from_an_allowed_host_to_a_refused_one_is_refused(pair: Pair, path: str, refused: str) -> None:
    policy = names(pair, {"inner.test": [INNER]})

    with pytest.raises(AddressRefused) as caught:
        fetch(pair.url(path), policy)

    assert str(caught.value) == (
        f"{pair.url(path)}: host {refused} is a private address ({INNER}: loopback); "
        "allow private sources explicitly to fetch it"
    )
    assert (pair.outer.seen, pair.inner.seen) == ([(path, f"{OUTER}:{pair.port}")], [])


def test_a_guarded_client_following_redirects_checks_every_hop(pair: Pair) -> None:
    with guarded_client(Policy(allowed=ALLOW_OUTER), follow_redirects=True) as client:
        assert client.get(pair.url("/to-outer")).text == "outer /page"
        with pytest.raises(AddressRefused, match=f"host {INNER} is a private address"):
            client.get(pair.url("/to-inner"))

    assert pair.inner.seen == []


def test_the_connection_goes_to_the_checked_address_whatever_a_second_lookup_would_say(pair: Pair) -> None:
    answers = iter([[OUTER], [INNER], [INNER]])  # public-looking first, rebound afterwards

    def rebinding(host: str, port: int) -> Sequence[str]:
        pair.lookups.append(host)
        return next(answers)

    result = fetch(pair.url("/page", host="rebind.test"), Policy(allowed=ALLOW_OUTER, resolver=rebinding))

    assert isinstance(result, Fetched)
    assert result.body == b"outer /page"
    assert pair.lookups == ["rebind.test"]
    # The Host header keeps the name: virtual hosts and TLS (server name) see the URL's host.
    assert (pair.outer.seen, pair.inner.seen) == ([("/page", f"rebind.test:{pair.port}")], [])


def test_a_new_connection_is_checked_again(pair: Pair) -> None:
    answers = iter([[OUTER], [INNER]])

    def rebinding(host: str, port: int) -> Sequence[str]:
        return next(answers)

    with guarded_client(Policy(allowed=ALLOW_OUTER, resolver=rebinding)) as client:
        first = client.get(pair.url("/page", host="rebind.test"), headers={"Connection": "close"})
        with pytest.raises(AddressRefused, match=f"host rebind.test is a private address \\({INNER}: loopback\\)"):
            client.get(pair.url("/page", host="rebind.test"))

    assert first.text == "outer /page"
    assert pair.inner.seen == []


def test_conditional_get_returns_not_modified_with_the_validators(pair: Pair) -> None:
    policy = Policy(allowed=ALLOW_OUTER)

    first = fetch(pair.url("/validated"), policy)
    again = fetch(pair.url("/validated"), policy, validators=Validators(etag=ETAG))
    by_date = fetch(pair.url("/validated"), policy, validators=Validators(last_modified=LAST_MODIFIED))
    stale = fetch(pair.url("/validated"), policy, validators=Validators(etag='"v0"'))

    assert first == Fetched(pair.url("/validated"), b"schedule v1", Validators(ETAG, LAST_MODIFIED))
    assert again == NotModified(Validators(ETAG, None))
    assert by_date == NotModified(Validators(ETAG, LAST_MODIFIED))
    assert stale == first


def test_a_not_modified_answer_without_validators_keeps_the_stored_ones(pair: Pair) -> None:
    stored = Validators(ETAG, LAST_MODIFIED)

    result = fetch(pair.url("/unchanged"), Policy(allowed=ALLOW_OUTER), validators=stored)

    # Losing them would make the next fetch unconditional (RFC 9110 §15.4.5: a 304 may omit them).
    assert result == NotModified(stored)


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/page", "file:///etc/passwd", "gopher://127.0.0.1/"])
def test_only_http_and_https_are_fetched(url: str) -> None:
    with pytest.raises(FetchError) as caught:
        fetch(url, Policy(allow_private=True))

    assert str(caught.value) == f"{url}: is not an http(s) URL"


def test_userinfo_never_reaches_a_message(pair: Pair) -> None:
    url = f"http://organiser:hunter2@{INNER}:{pair.port}/page"

    with pytest.raises(AddressRefused) as caught:
        fetch(url, Policy(allowed=ALLOW_OUTER))

    assert str(caught.value).split(": host ")[0] == f"http://***@{INNER}:{pair.port}/page"
    assert "hunter2" not in str(caught.value)


def test_a_body_over_the_cap_is_cut_off(pair: Pair) -> None:
    with pytest.raises(LimitExceeded) as caught:
        fetch(pair.url("/page"), Policy(allowed=ALLOW_OUTER, max_bytes=5))

    assert str(caught.value) == f"{pair.url('/page')}: is larger than the limit of 5 bytes (11 declared)"


class Drip:
    """A raw loopback server that answers one request a byte at a time, every `pause` seconds,
    and completes the answer after `total` bytes: without a deadline the fetch would succeed."""

    def __init__(self, answer: bytes, pause: float) -> None:
        self.answer, self.pause = answer, pause
        self.listener = socket.create_server((OUTER, 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        connection, _ = self.listener.accept()
        with connection:
            connection.recv(65536)
            try:
                for byte in self.answer:
                    connection.sendall(bytes([byte]))
                    time.sleep(self.pause)
            except OSError:
                pass  # the client gave up: what the test wants

    def close(self) -> None:
        self.listener.close()
        self.thread.join()


BODY = b"a page that takes a while"
DRIPS = {
    "body": b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY),
    "headers": b"HTTP/1.1 200 OK\r\nX-Padding: " + b"." * 40 + b"\r\nContent-Length: 0\r\n\r\n",
}


@pytest.mark.parametrize("part", sorted(DRIPS))
def test_a_dripping_server_is_stopped_by_the_deadline(part: str) -> None:
    drip = Drip(DRIPS[part], pause=0.1)
    url = f"http://{OUTER}:{drip.port}/page"
    policy = Policy(allowed=ALLOW_OUTER, timeout=30.0, deadline=1.0)  # every single read is quick

    try:
        with pytest.raises(DeadlineExceeded) as caught:
            fetch(url, policy)
    finally:
        drip.close()

    assert str(caught.value) == f"{url}: took longer than the 1 s deadline"


@pytest.mark.parametrize("host", ["[::127.0.0.1]", "[::ffff:127.0.0.1]", "[::1]", "0.0.0.0", "2130706433"])
def test_loopback_in_any_spelling_is_refused_by_the_system_resolver(host: str) -> None:
    with pytest.raises(AddressRefused, match="is a private address"):
        fetch(f"http://{host}:9/page")


def test_a_redirect_to_an_invalid_url_is_a_clear_error(pair: Pair) -> None:
    with pytest.raises(FetchError) as caught:
        fetch(pair.url("/to-nowhere"), Policy(allowed=ALLOW_OUTER))

    assert str(caught.value) == (
        f"{pair.url('/to-nowhere')}: cannot be fetched: Invalid URL in location header: Invalid IPv6 address: '[zz]'."
    )


def _no_dns(host: str, port: int) -> Sequence[str]:
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


@settings(deadline=None, max_examples=100)
@given(scheme=st.sampled_from(["http", "HTTPS", "hTtP", "ftp", "file"]), rest=st.text())
def test_any_url_text_fails_with_a_source_error_only(scheme: str, rest: str) -> None:
    with pytest.raises(SourceError):  # never a traceback of another kind; no lookup reaches a network
        fetch(f"{scheme}://{rest}", Policy(resolver=_no_dns))


# --- Promises found unguarded by mutation testing (bench/MUTATION.md) ---------------


def test_the_request_asks_for_no_compression_and_names_confcal(pair: Pair) -> None:
    fetch(pair.url("/page"), Policy(allowed=ALLOW_OUTER))

    asked = pair.outer.asked[0]
    # identity: a compressed body could expand past the size cap after it was counted.
    assert (asked["Accept-Encoding"], asked["User-Agent"]) == ("identity", "confcal")


def test_five_redirects_are_followed_and_a_sixth_is_refused(pair: Pair) -> None:
    policy = Policy(allowed=ALLOW_OUTER)  # max_redirects=5

    arrived = fetch(pair.url("/hops/5"), policy)
    with pytest.raises(FetchError) as caught:
        fetch(pair.url("/hops/6"), policy)

    assert arrived == Fetched(pair.url("/hops/0"), b"arrived", Validators())
    assert str(caught.value) == f"{pair.url('/hops/6')}: more than 5 redirects"


def test_a_body_of_exactly_the_cap_is_fetched(pair: Pair) -> None:
    result = fetch(pair.url("/page"), Policy(allowed=ALLOW_OUTER, max_bytes=len(b"outer /page")))

    assert isinstance(result, Fetched) and result.body == b"outer /page"


def test_a_body_without_content_length_is_cut_off_at_the_policys_cap() -> None:
    body = b"x" * 64
    drip = Drip(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body, pause=0)
    url = f"http://{OUTER}:{drip.port}/page"

    try:
        with pytest.raises(LimitExceeded) as caught:
            fetch(url, Policy(allowed=ALLOW_OUTER, max_bytes=10))
    finally:
        drip.close()

    assert str(caught.value) == f"{url}: is larger than the limit of 10 bytes"


def test_environment_proxies_are_ignored(pair: Pair, monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy would make the connection for us, to an address the guard never saw.
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")

    result = fetch(pair.url("/page"), Policy(allowed=ALLOW_OUTER))

    assert isinstance(result, Fetched) and result.body == b"outer /page"


def test_the_connection_goes_to_the_address_the_name_resolved_to(pair: Pair) -> None:
    policy = Policy(
        allowed=(ipaddress.ip_network(f"{INNER}/32"),),
        resolver=lambda host, port: [INNER] if host == "inner.test" else [host],
    )

    result = fetch(pair.url("/page", host="inner.test"), policy)

    assert isinstance(result, Fetched) and result.body == b"inner /page"


def test_an_address_that_refuses_the_connection_is_skipped_for_the_next(pair: Pair) -> None:
    silent = "127.0.0.3"  # nothing listens there on the pair's port
    policy = Policy(
        allowed=(ipaddress.ip_network("127.0.0.0/29"),),
        resolver=lambda host, port: [silent, OUTER] if host == "twice.test" else [host],
    )

    result = fetch(pair.url("/page", host="twice.test"), policy)

    assert isinstance(result, Fetched) and result.body == b"outer /page"


def test_each_wait_is_cut_to_the_policys_timeout_within_the_deadline() -> None:
    # Headers at once, then a body byte every 2 s: each read waits longer than the 0.3 s timeout,
    # while the whole fetch would end well inside the 30 s deadline.
    drip = Drip(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", pause=2.0)
    url = f"http://{OUTER}:{drip.port}/page"

    try:
        with pytest.raises(FetchError) as caught:
            fetch(url, Policy(allowed=ALLOW_OUTER, timeout=0.3, deadline=30.0))
    finally:
        drip.close()

    assert str(caught.value) == f"{url}: cannot be fetched: timed out"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/missing", "HTTP 404"),
        ("/to-ftp", "redirects to 'ftp://files.example/schedule.ics', which is not an http(s) URL"),
    ],
)
def test_an_answer_that_is_not_a_schedule_is_named(pair: Pair, path: str, message: str) -> None:
    with pytest.raises(FetchError) as caught:
        fetch(pair.url(path), Policy(allowed=ALLOW_OUTER))

    assert str(caught.value) == f"{pair.url(path)}: {message}"


def test_a_url_without_a_host_is_named() -> None:
    with pytest.raises(FetchError) as caught:
        fetch("http:///schedule.ics", Policy())

    assert str(caught.value) == "http:///schedule.ics: has no host"


def test_a_host_whose_every_address_refuses_the_connection_is_named(pair: Pair) -> None:
    silent = "127.0.0.3"  # nothing listens there on the pair's port
    url = pair.url("/page", host="silent.test")
    policy = Policy(
        allowed=(ipaddress.ip_network(f"{silent}/32"),),
        resolver=lambda host, port: [silent, silent] if host == "silent.test" else [host],
    )

    with pytest.raises(FetchError) as caught:
        fetch(url, policy)

    # The last connect's own error, not a bare "cannot connect" (or a TypeError from raising None).
    assert str(caught.value) == f"{url}: cannot be fetched: [Errno 111] Connection refused"


def test_a_url_that_does_not_parse_is_named_with_its_userinfo_redacted() -> None:
    url = "http://organiser:hunter2@[zz]/page"

    with pytest.raises(FetchError) as caught:
        fetch(url, Policy())

    assert str(caught.value) == "http://***@[zz]/page: is not a valid URL (Invalid IPv6 address: '[zz]')"
