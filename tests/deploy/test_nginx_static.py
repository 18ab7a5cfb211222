"""`confcal build` output served by Debian's nginx with deploy/nginx/confcal-static-locations.conf:
calendar and JSON media types, validators that survive an unchanged rebuild, 304s, the page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from server.cli import main
from tests.helpers.nginx_process import DEPLOY, running_nginx


def _site(root: Path) -> str:
    return f"""
    server {{
        listen 127.0.0.1:{{port}};
        server_name localhost;
        root {root};
        index index.html;
        include {DEPLOY / "confcal-static-locations.conf"};
    }}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, Path]]:
    work = tmp_path_factory.mktemp("nginx-static")
    site, db = work / "site", work / "store.sqlite"
    assert main(["build", "--db", str(db), str(site)]) == 0
    with running_nginx(work / "nginx", _site(site)) as url:
        yield site, url, db


def test_feeds_are_served_as_calendars(built: tuple[Path, str, Path]) -> None:
    site, url, _ = built

    reply = httpx.get(url + "/feeds/all.ics")

    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/calendar; charset=utf-8"
    assert reply.content == (site / "feeds" / "all.ics").read_bytes()
    assert reply.headers["x-content-type-options"] == "nosniff"


def test_api_documents_are_json(built: tuple[Path, str, Path]) -> None:
    _, url, _ = built

    reply = httpx.get(url + "/api/sessions")

    assert reply.headers["content-type"] == "application/json"
    assert len(reply.json()["sessions"]) == 28


def test_the_page_is_the_index(built: tuple[Path, str, Path]) -> None:
    _, url, _ = built

    reply = httpx.get(url + "/")

    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/html"


def test_an_unchanged_rebuild_keeps_validators_and_304(built: tuple[Path, str, Path]) -> None:
    site, url, db = built
    first = httpx.get(url + "/feeds/all.ics").headers["etag"]

    assert main(["build", "--db", str(db), str(site)]) == 0
    second = httpx.get(url + "/feeds/all.ics", headers={"If-None-Match": first})

    assert second.status_code == 304
