"""confcal serve behind Debian's nginx with deploy/nginx: feeds cached and revalidated with their
ETags, 304s passed through, personal feeds and the picks API never cached."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feeds.demo import DEMO_TZ, demo_sources
from feeds.pipeline import load_schedule
from server.store import Store
from tests.helpers.nginx_process import DEPLOY, running_nginx
from tests.helpers.serve_process import Running, running_confcal

CHANGED_PAGE = Path(__file__).resolve().parents[1] / "server" / "app" / "fixtures" / "002_changed.txt"


def _site(upstream: str, cache: Path) -> str:
    host_port = upstream.removeprefix("http://")
    return f"""
    proxy_cache_path {cache} levels=1:2 keys_zone=confcal:10m max_size=100m inactive=10m use_temp_path=off;
    include {DEPLOY / "confcal-http.conf"};
    upstream confcal {{ server {host_port}; keepalive 8; }}
    server {{
        listen 127.0.0.1:{{port}};
        server_name localhost;
        include {DEPLOY / "confcal-locations.conf"};
    }}
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, str]]:
    work = tmp_path_factory.mktemp("nginx-proxy")
    (work / "confcal").mkdir()
    with running_confcal(work / "confcal") as app:
        with running_nginx(work / "nginx", _site(app.url, work / "cache")) as proxy:
            yield app, proxy


def test_a_feed_through_nginx_is_the_apps_feed(stack: tuple[Running, str]) -> None:
    app, proxy = stack

    direct = httpx.get(app.url + "/feeds/all.ics")
    proxied = httpx.get(proxy + "/feeds/all.ics")

    assert proxied.status_code == 200
    assert proxied.content == direct.content
    assert proxied.headers["etag"] == direct.headers["etag"]
    assert proxied.headers["content-type"] == direct.headers["content-type"]


def test_a_repeated_feed_request_is_a_cache_hit(stack: tuple[Running, str]) -> None:
    _, proxy = stack
    httpx.get(proxy + "/api/feeds")

    again = httpx.get(proxy + "/api/feeds")

    assert again.headers["x-cache-status"] == "HIT"


def test_a_matching_etag_gets_304_through_nginx(stack: tuple[Running, str]) -> None:
    _, proxy = stack
    etag = httpx.get(proxy + "/feeds/all.ics").headers["etag"]

    revalidated = httpx.get(proxy + "/feeds/all.ics", headers={"If-None-Match": etag})

    assert revalidated.status_code == 304
    assert revalidated.headers["etag"] == etag


def test_gzip_variant_keeps_the_apps_own_etag(stack: tuple[Running, str]) -> None:
    app, proxy = stack
    headers = {"Accept-Encoding": "gzip"}

    direct = httpx.get(app.url + "/feeds/all.ics", headers=headers)
    proxied = httpx.get(proxy + "/feeds/all.ics", headers=headers)
    plain = httpx.get(proxy + "/feeds/all.ics", headers={"Accept-Encoding": "identity"})

    assert proxied.headers["content-encoding"] == "gzip"
    assert proxied.headers["etag"] == direct.headers["etag"]
    assert plain.headers.get("content-encoding") is None
    assert plain.headers["etag"] != proxied.headers["etag"]
    assert proxied.content == plain.content  # httpx decodes the gzip body


def test_personal_feed_and_picks_api_are_never_cached(stack: tuple[Running, str]) -> None:
    _, proxy = stack
    sessions = httpx.get(proxy + "/api/sessions").json()["sessions"]
    created = httpx.post(proxy + "/api/picks", json={"sessions": [sessions[0]["id"]]})
    assert created.status_code == 201
    token = created.json()["token"]
    base = httpx.get(proxy + "/api/conferences").json()["conferences"][0]["url"]  # e.g. /c/slug/
    paths = [f"/p/{token}.ics", f"/api/picks/{token}", f"{base}p/{token}.ics", f"{base}api/picks/{token}"]

    replies = [httpx.get(proxy + path) for path in paths + paths]

    assert [r.status_code for r in replies] == [200] * 8
    assert [r.headers.get("x-cache-status") for r in replies] == [None] * 8  # no cache in that location


def test_a_new_ingest_reaches_readers_through_nginx(stack: tuple[Running, str]) -> None:
    app, proxy = stack
    before = httpx.get(proxy + "/feeds/all.ics").headers["etag"]

    sources = [s for s in demo_sources() if "002_" not in Path(s).name] + [str(CHANGED_PAGE)]
    with Store.open(app.db) as store:
        store.ingest(load_schedule(sources, DEMO_TZ).schedule)
    after = before
    for _ in range(300):  # bounded: app poll (2 s) plus the 5 s micro-cache, on a busy machine
        after = httpx.get(proxy + "/feeds/all.ics").headers["etag"]
        if after != before:
            break
        time.sleep(0.1)

    assert after != before
    assert after == httpx.get(app.url + "/feeds/all.ics").headers["etag"]


def test_health_and_metrics_pass_through_uncached(stack: tuple[Running, str]) -> None:
    _, proxy = stack

    replies = [httpx.get(proxy + path) for path in ("/healthz", "/healthz", "/metrics", "/metrics")]

    assert [r.status_code for r in replies] == [200] * 4
    assert [r.headers.get("x-cache-status") for r in replies] == [None] * 4
    assert replies[0].json()["status"] == "ok"
    assert "confcal_http_requests_total" in replies[2].text
