"""The Host allow list: parsing Host values, and the app answering only the names it was started
for when links follow Host (no base URL), and any Host with a base URL."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

from server.store import Store
from server.web.app import create_app
from server.web.demo import seed_demo
from server.web.guards import Guards, default_hosts
from server.web.hosts import AllowedHosts, allowed_entries, split_host
from tests.helpers.app_helpers import NOW, Http


async def unasked(scope: Scope, receive: Receive, send: Send) -> None:
    """The app behind a guard that is only asked whether it answers a Host."""


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("localhost", ("localhost", None)),
        ("LocalHost:8080", ("localhost", 8080)),
        ("127.0.0.1:80", ("127.0.0.1", 80)),
        ("[::1]", ("::1", None)),
        ("[::1]:8080", ("::1", 8080)),
        ("cal.example.org", ("cal.example.org", None)),
    ],
)
def test_host_values_are_split_into_name_and_port(value: str, parsed: tuple[str, int | None]) -> None:
    assert split_host(value) == parsed


@pytest.mark.parametrize("value", ["", ":80", "[::1", "[]:80", "[::1]x", "a:b", "a:99999", "a:-1"])
def test_malformed_host_values_are_none(value: str) -> None:
    assert split_host(value) is None


def test_allowed_entries_take_names_ports_and_bare_ipv6() -> None:
    assert allowed_entries(["::1", "[::1]:8443", "Cal.Example.org", "h:81"]) == {
        ("::1", None),
        ("::1", 8443),
        ("cal.example.org", None),
        ("h", 81),
    }
    with pytest.raises(ValueError, match="not a host name or address: 'h:x'"):
        allowed_entries(["h:x"])


@pytest.fixture(scope="module")
def guarded(demo_app: Starlette) -> Starlette:
    # The same store as demo_app, now only answering what `serve --host 127.0.0.1
    # --allowed-host cal.example.org` would.
    store: Store = demo_app.state.live.store
    hosts = default_hosts("127.0.0.1", ("cal.example.org",))
    return create_app(store, seed=lambda: seed_demo(store), clock=lambda: NOW, guards=Guards(allowed_hosts=hosts))


def get_with_host(app: Starlette, host: str, path: str = "/feeds/all.ics") -> int:
    return Http(app).get(path, host=host).status


@pytest.mark.parametrize(
    "host",
    # httpx's test transport puts the server on port 80: an allowed name may carry that port.
    ["localhost", "127.0.0.1", "[::1]", "cal.example.org", "CAL.EXAMPLE.ORG", "localhost:80"],
)
def test_the_names_it_was_started_for_are_answered(guarded: Starlette, host: str) -> None:
    assert get_with_host(guarded, host) == 200


@pytest.mark.parametrize(
    "host",
    ["evil.example", "cal.example.org.evil.example", "localhost:1", "[::2]", "local host", "a:b"],
)
def test_other_hosts_are_400_whatever_the_path(guarded: Starlette, host: str) -> None:
    for path in ("/", "/feeds/all.ics", "/api/sessions", "/api/picks/" + "A" * 24, "/nowhere"):
        reply = Http(guarded).get(path, host=host)

        assert (reply.status, reply.text) == (400, "400 Bad Request: unknown Host\n")
        assert reply.headers["x-content-type-options"] == "nosniff"


def test_a_refused_host_never_reaches_the_page_cache(guarded: Starlette) -> None:
    # Links on the page follow Host: an unknown one must not be rendered (nor cached).
    reply = Http(guarded).get("/", host="attacker.example")

    assert b"attacker.example" not in reply.content


def test_with_a_base_url_host_is_ignored(demo_app: Starlette) -> None:
    store: Store = demo_app.state.live.store
    app = create_app(
        store,
        base_url="https://cal.example.org",
        seed=lambda: seed_demo(store),
        clock=lambda: NOW,
        guards=Guards(allowed_hosts=default_hosts("127.0.0.1")),
    )

    reply = Http(app).get("/api/feeds", host="anything.example")

    assert reply.status == 200
    assert b"anything.example" not in reply.content
    assert b"webcal://cal.example.org/feeds/all.ics" in reply.content


@pytest.mark.parametrize("port", [8080, "8080"])
def test_the_listening_port_counts_whether_the_server_gives_it_as_int_or_str(
    port: int | str,
) -> None:
    # uvicorn gives scope["server"] as ("127.0.0.1", 8080), granian as ("127.0.0.1", "8080").
    guard = AllowedHosts(app=unasked, allowed=allowed_entries(["127.0.0.1"]))
    scope = {"type": "http", "scheme": "http", "server": ("127.0.0.1", port), "headers": [(b"host", b"127.0.0.1:8080")]}

    assert guard.answers(scope)


def test_answers_are_remembered_per_host_value_but_never_more_than_a_bound() -> None:
    guard = AllowedHosts(app=unasked, allowed=allowed_entries(["localhost"]))

    def asks(host: bytes) -> bool:
        return guard.answers({"headers": [(b"host", host)], "server": ("127.0.0.1", 8080), "scheme": "http"})

    junk = [asks(f"junk-{n}.example".encode()) for n in range(1000)]
    again = (asks(b"localhost:8080"), asks(b"localhost:8081"), asks(b"junk-1.example"))

    assert set(junk) == {False}
    assert again == (True, False, False)
    assert len(guard._answered) == 256
