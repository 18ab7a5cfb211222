"""confcal serve behind Debian's nginx with deploy/nginx: feeds cached and revalidated with their
ETags, 304s passed through, the picks API never cached, personal feeds cached for a second each by
their whole URL in a zone of their own, their tokens in no log and not in the public cache."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from feeds.demo import DEMO_TZ, demo_sources
from feeds.pipeline import load_schedule
from server.store import Store
from tests.helpers.nginx_process import DEPLOY, running_nginx
from tests.helpers.serve_process import Running, free_port, running_confcal

CHANGED_PAGE = Path(__file__).resolve().parents[1] / "server" / "app" / "fixtures" / "002_changed.txt"


def _site(upstream: str, cache: Path) -> str:
    host_port = upstream.removeprefix("http://")
    return f"""
    proxy_cache_path {cache} levels=1:2 keys_zone=confcal:10m max_size=100m inactive=10m use_temp_path=off;
    proxy_cache_path {cache}-personal levels=1:2 keys_zone=confcal_personal:1m max_size=10m inactive=1m use_temp_path=off;
    include {DEPLOY / "confcal-http.conf"};
    upstream confcal {{ server {host_port}; keepalive 8; }}
    server {{
        listen 127.0.0.1:{{port}};
        server_name localhost;
        include {DEPLOY / "confcal-locations.conf"};
    }}
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """nginx's logs are under work/nginx, the public cache in work/cache, the personal one in
    work/cache-personal."""
    return tmp_path_factory.mktemp("nginx-proxy")


@pytest.fixture(scope="module")
def stack(work: Path) -> Iterator[tuple[Running, str]]:
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


def _new_picks(proxy: str, at: int) -> tuple[str, list[str]]:
    """A new pick set of the session at `at` (the token) and every session id, in order."""
    ids = [s["id"] for s in httpx.get(proxy + "/api/sessions").json()["sessions"]]
    created = httpx.post(proxy + "/api/picks", json={"sessions": [ids[at]]})
    assert created.status_code == 201
    return created.json()["token"], ids


def _until_hit(url: str) -> httpx.Response:
    """The first answer nginx gave from its cache (bounded: on a busy machine the second may pass
    between two requests, so a few misses may come first)."""
    reply = httpx.get(url)
    for _ in range(50):
        if reply.headers.get("x-cache-status") == "HIT":
            break
        reply = httpx.get(url)
    return reply


def test_the_picks_api_is_never_cached(stack: tuple[Running, str]) -> None:
    _, proxy = stack
    token, _ = _new_picks(proxy, 0)
    base = httpx.get(proxy + "/api/conferences").json()["conferences"][0]["url"]  # e.g. /c/slug/
    paths = [f"/api/picks/{token}", f"{base}api/picks/{token}"]

    replies = [httpx.get(proxy + path) for path in paths + paths]

    assert [r.status_code for r in replies] == [200] * 4
    assert [r.headers.get("x-cache-status") for r in replies] == [None] * 4  # no cache in that location


def test_a_personal_feed_is_answered_from_nginx_for_its_url_alone_and_stays_private(
    stack: tuple[Running, str],
) -> None:
    app, proxy = stack
    token, _ = _new_picks(proxy, 0)
    other, _ = _new_picks(proxy, 1)
    base = httpx.get(proxy + "/api/conferences").json()["conferences"][0]["url"]

    hit = _until_hit(f"{proxy}/p/{token}.ics")
    first_other = httpx.get(f"{proxy}/p/{other}.ics")
    first_under_base = httpx.get(f"{proxy}{base}p/{token}.ics")

    direct = httpx.get(f"{app.url}/p/{token}.ics")
    assert hit.headers["x-cache-status"] == "HIT"
    assert (hit.content, hit.headers["etag"]) == (direct.content, direct.headers["etag"])
    assert hit.headers["cache-control"] == direct.headers["cache-control"]
    assert hit.headers["cache-control"].startswith("private")
    assert "x-accel-expires" not in hit.headers
    assert direct.headers["x-accel-expires"] == "1"
    assert first_other.headers["x-cache-status"] == "MISS"
    assert first_other.content == httpx.get(f"{app.url}/p/{other}.ics").content != hit.content
    assert first_under_base.headers["x-cache-status"] == "MISS"


def test_a_personal_feed_shows_a_changed_pick_set_once_its_second_is_over(stack: tuple[Running, str]) -> None:
    _, proxy = stack
    token, ids = _new_picks(proxy, 0)
    url = f"{proxy}/p/{token}.ics"
    before = _until_hit(url)
    changed = httpx.put(f"{proxy}/api/picks/{token}", json={"sessions": [ids[0], ids[2]]})
    assert changed.status_code == 200

    after = httpx.get(url)
    for _ in range(300):  # bounded: the entry's second, on a busy machine
        if after.content != before.content:
            break
        time.sleep(0.05)
        after = httpx.get(url)

    assert before.headers["x-cache-status"] == "HIT"
    assert after.content.count(b"BEGIN:VEVENT") == 2
    assert before.content.count(b"BEGIN:VEVENT") == 1


def test_a_personal_feeds_token_is_in_no_log_and_not_in_the_public_cache(
    stack: tuple[Running, str], work: Path
) -> None:
    _, proxy = stack
    token, _ = _new_picks(proxy, 3)
    base = httpx.get(proxy + "/api/conferences").json()["conferences"][0]["url"]
    for path in (f"/p/{token}.ics", f"/p/{token}.ics?alarm=15", f"{base}p/{token}.ics"):
        _until_hit(proxy + path)
    assert httpx.get(f"{proxy}/p/{token}.svg").headers["x-cache-status"] == "MISS"  # private: not stored

    def holding(folder: Path) -> list[str]:
        return sorted(
            str(f.relative_to(work)) for f in folder.rglob("*") if f.is_file() and token.encode() in f.read_bytes()
        )

    assert holding(work / "nginx") == []  # access.log, error.log
    assert holding(work / "cache") == []
    assert len(holding(work / "cache-personal")) == 3  # the three feed URLs, on tmpfs when deployed


def test_an_invitations_link_code_is_in_no_log_and_not_cached(stack: tuple[Running, str], work: Path) -> None:
    _, proxy = stack
    code = "c0de" + "5ecret" * 4
    paths = [f"/api/invitations/confirm/{code}", f"/api/invitations/stop/{code}"]

    replies = [httpx.get(proxy + path) for path in paths + paths]

    assert [r.headers.get("x-cache-status") for r in replies] == [None] * 4
    found = [f for f in work.rglob("*") if f.is_file() and code.encode() in f.read_bytes()]
    assert found == []


def test_the_shipped_sites_keep_the_personal_cache_on_tmpfs() -> None:
    compose = yaml.safe_load((DEPLOY.parent / "compose.yaml").read_text(encoding="utf-8"))
    zones = [
        re.search(r"^proxy_cache_path (\S+) .*keys_zone=confcal_personal:", (DEPLOY / name).read_text(), re.M)
        for name in ("confcal.conf", "compose-site.conf")
    ]

    paths = [zone.group(1) if zone else None for zone in zones]
    assert paths == ["/run/nginx-confcal-personal"] * 2  # /run: tmpfs under systemd
    assert compose["services"]["nginx"]["tmpfs"] == ["/run/nginx-confcal-personal"]


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


def test_an_upstream_error_on_a_token_path_leaves_the_token_out_of_the_error_log(tmp_path: Path) -> None:
    down = f"http://127.0.0.1:{free_port()}"  # nothing listens there: every proxied request fails
    token = "70ken" + "5ecret" * 4
    paths = [f"/p/{token}.ics", f"/c/demo/p/{token}.ics", f"/api/picks/{token}", f"/api/invitations/stop/{token}"]
    with running_nginx(tmp_path / "nginx", _site(down, tmp_path / "cache")) as proxy:
        replies = [httpx.get(proxy + path) for path in paths]
        public = httpx.get(proxy + "/feeds/all.ics")
    log = (tmp_path / "nginx" / "error.log").read_text(errors="replace")

    assert [r.status_code for r in replies] == [502] * 4
    assert public.status_code == 502
    assert "/feeds/all.ics" in log  # the same error on a public path is logged
    assert token not in log
