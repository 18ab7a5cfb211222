"""The HTTP-side limits of a real `confcal serve` process: its log holds no pick token, unknown
Host values get 400 (none with --base-url), pick-set creation and the CPU spent on filtered
feeds are rate-limited per client as its options say, X-Forwarded-For counts only from a
--trusted-proxy, and bodies are bounded over the wire."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server.web.access_log import token_tag
from tests.helpers.serve_process import Running, running_confcal

JSON = {"content-type": "application/json"}
EMPTY = b'{"sessions": []}'


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Path]]:
    work = tmp_path_factory.mktemp("guards")
    extra = ("--allowed-host", "cal.example.org", "--pick-burst", "3", "--pick-sets-per-hour", "1",
             "--render-burst", "0.001", "--render-seconds-per-hour", "0.001")  # fmt: skip
    with running_confcal(work, *extra) as running:
        yield running, work / "serve.log"


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    work = tmp_path_factory.mktemp("proxied")
    extra = ("--base-url", "https://cal.example.org", "--trusted-proxy", "127.0.0.1",
             "--pick-burst", "1", "--pick-sets-per-hour", "1")  # fmt: skip
    with running_confcal(work, *extra) as running:
        yield running


def test_the_log_names_pick_sets_by_tag_never_by_token(server: tuple[Running, Path]) -> None:
    running, log = server
    created = httpx.post(running.url + "/api/picks", content=EMPTY, headers=JSON)
    token = created.json()["token"]

    httpx.get(f"{running.url}/p/{token}.ics")
    httpx.get(f"{running.url}/p/{token}.svg")
    httpx.get(f"{running.url}/api/picks/{token}")
    httpx.put(f"{running.url}/api/picks/{token}", content=EMPTY, headers=JSON)
    httpx.get(f"{running.url}/feeds/all.ics")

    # A line is written once its response has gone out: wait (bounded) for the last one.
    for _ in range(100):
        text = log.read_text()
        if '"GET /feeds/all.ics HTTP/1.1"' in text:
            break
        time.sleep(0.1)
    tag = token_tag(token)
    assert token not in text
    assert re.findall(rf'"(\w+ \S*{tag}\S*) HTTP/1.1" (\d+)', text) == [
        (f"GET /p/{tag}.ics", "200"),
        (f"GET /p/{tag}.svg", "200"),
        (f"GET /api/picks/{tag}", "200"),
        (f"PUT /api/picks/{tag}", "200"),
    ]
    assert '"GET /feeds/all.ics HTTP/1.1" 200' in text
    assert '"POST /api/picks HTTP/1.1" 201' in text


@pytest.mark.parametrize("host", ["evil.example", "localhost:1", "127.0.0.1.nip.io"])
def test_an_unknown_host_is_400(server: tuple[Running, Path], host: str) -> None:
    running, _ = server

    reply = httpx.get(running.url + "/", headers={"host": host})

    assert (reply.status_code, reply.text) == (400, "400 Bad Request: unknown Host\n")


def test_the_names_it_was_started_for_are_answered(server: tuple[Running, Path]) -> None:
    running, _ = server
    port = httpx.URL(running.url).port

    statuses = [
        httpx.get(running.url + "/feeds/all.ics", headers={"host": host}).status_code
        for host in ("localhost", f"localhost:{port}", f"127.0.0.1:{port}", "[::1]", "cal.example.org")
    ]

    assert statuses == [200] * 5


def test_with_a_base_url_any_host_is_answered_and_links_ignore_it(proxied: Running) -> None:
    reply = httpx.get(proxied.url + "/api/feeds", headers={"host": "evil.example"})

    assert reply.status_code == 200
    assert "evil.example" not in reply.text
    assert "webcal://cal.example.org/feeds/all.ics" in reply.text


def test_creation_is_rate_limited_and_a_spoofed_forwarded_for_does_not_help(
    server: tuple[Running, Path],
) -> None:
    running, _ = server
    url = running.url + "/api/picks"
    statuses = []
    for n in range(4):  # the log test may have used one of the three already
        spoof = {**JSON, "x-forwarded-for": f"198.51.100.{n}"}
        statuses.append(httpx.post(url, content=EMPTY, headers=spoof).status_code)

    refused = httpx.post(url, content=EMPTY, headers=JSON)

    assert statuses[-1] == 429 and set(statuses) <= {201, 429}
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 3600
    assert refused.json()["error"].startswith("too many pick sets created from your address")


def test_the_render_budget_is_set_by_its_options(server: tuple[Running, Path]) -> None:
    running, _ = server
    feed = running.url + "/feeds/all.ics"

    # A millisecond of CPU at once: the first reminder's feed spends it, a second is refused.
    first, second = httpx.get(feed, params={"alarm": "10"}), httpx.get(feed, params={"alarm": "20"})

    assert [first.status_code, second.status_code, httpx.get(feed).status_code] == [200, 429, 200]
    assert int(second.headers["retry-after"]) >= 1


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget(proxied: Running) -> None:
    url = proxied.url + "/api/picks"

    def post(client: str) -> int:
        return httpx.post(url, content=EMPTY, headers={**JSON, "x-forwarded-for": client}).status_code

    assert [post("198.51.100.7"), post("198.51.100.7"), post("198.51.100.8")] == [201, 429, 201]


def test_a_text_plain_post_is_415_over_the_wire(server: tuple[Running, Path]) -> None:
    running, _ = server

    reply = httpx.post(running.url + "/api/picks", content=EMPTY, headers={"content-type": "text/plain"})

    assert reply.status_code == 415


def test_a_streamed_body_without_length_over_the_limit_is_413(
    server: tuple[Running, Path],
) -> None:
    running, _ = server

    def endless() -> Iterator[bytes]:
        for _ in range(2000):  # 128 MB on offer, sent chunked
            yield b" " * 65536

    reply = httpx.post(running.url + "/api/picks", content=endless(), headers=JSON, timeout=60)

    assert reply.status_code == 413
    assert reply.json() == {"error": "request body over 98304 bytes"}
