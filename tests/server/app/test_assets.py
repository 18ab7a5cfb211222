"""Static files: content-hashed names cached for a year, gzip made once per content, the
service worker revalidated on every visit."""

from __future__ import annotations

import hashlib
import re

from server.pages.assets import STATIC, asset_path, lookup
from tests.helpers.app_helpers import Http


def test_page_links_its_css_and_js_by_content_hash(http: Http) -> None:
    html = http.get("/").text
    css = (STATIC / "schedule.css").read_bytes()

    linked = re.findall(r'(?:href|src)="(static/[^"]+)"', html)

    assert asset_path("schedule.css") in linked
    assert asset_path("schedule.js") in linked
    assert asset_path("schedule.css") == (f"static/schedule.{hashlib.sha256(css).hexdigest()[:12]}.css")


def test_hashed_file_is_immutable_and_compressed(http: Http) -> None:
    path = "/" + asset_path("schedule.css")

    reply = http.get(path, accept_encoding="gzip")

    assert reply.status == 200
    assert reply.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert reply.headers["content-encoding"] == "gzip"
    assert reply.content == (STATIC / "schedule.css").read_bytes()


def test_gzip_is_made_once_per_content() -> None:
    rep = lookup(asset_path("schedule.js").removeprefix("static/"))

    assert rep is not None
    assert rep.gzipped is rep.gzipped  # cached on the one Representation


def test_plain_name_still_answers_without_the_long_cache(http: Http) -> None:
    reply = http.get("/static/schedule.css")

    assert reply.status == 200
    assert "immutable" not in reply.headers["cache-control"]


def test_service_worker_lists_the_hashed_files_and_is_revalidated(http: Http) -> None:
    reply = http.get("/sw.js")

    assert reply.headers["cache-control"] == "no-cache"
    assert f'"{asset_path("schedule.js")}"' in reply.text
    assert http.get("/static/nothing.css").status == 404
