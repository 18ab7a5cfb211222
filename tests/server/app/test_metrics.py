"""`/metrics`: Prometheus text, requests by route template (never a raw path or a token), feeds
served by kind and status, 304s, and the counters other parts call."""

from __future__ import annotations

import re

from starlette.applications import Starlette

from server import metrics
from tests.helpers.app_helpers import Http, send


def _value(text: str, name: str, **labels: str) -> float:
    """The sample `name{labels}` in an exposition (label order as prometheus_client writes it)."""
    for line in text.splitlines():
        match = re.fullmatch(r"([a-z_]+)(?:\{(.*)\})? (\S+)", line)
        if match is None or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        if found == labels:
            return float(match.group(3))
    return 0.0


def test_requests_are_counted_by_route_template_without_tokens(demo_app: Starlette) -> None:
    http = Http(demo_app)
    token = send(demo_app, "POST", "/api/picks", b'{"sessions": []}').json_doc()["token"]
    before = http.get("/metrics").text
    slug = http.get("/api/conferences").json_doc()["conferences"][0]["slug"]

    http.get(f"/p/{token}.ics")
    etag = http.get(f"/c/{slug}/feeds/all.ics").headers["etag"]
    http.get(f"/c/{slug}/feeds/all.ics", if_none_match=etag)
    http.get("/no/such/page")
    after = http.get("/metrics")

    assert after.status == 200
    assert after.headers["content-type"].startswith("text/plain; version=")
    assert after.headers["cache-control"] == "no-store"
    text = after.text
    assert token not in text
    feed = "/c/{conference}/feeds/{name}"

    def delta(name: str, **labels: str) -> float:
        return _value(text, name, **labels) - _value(before, name, **labels)

    assert delta("confcal_http_requests_total", route="/p/{name}", method="GET", status="200") == 1
    assert delta("confcal_http_requests_total", route=feed, method="GET", status="200") == 1
    assert delta("confcal_http_requests_total", route=feed, method="GET", status="304") == 1
    assert delta("confcal_http_requests_total", route="unmatched", method="GET", status="404") == 1
    assert delta("confcal_feeds_served_total", kind="all", status="304") == 1
    assert delta("confcal_feeds_served_total", kind="personal", status="200") == 1
    assert delta("confcal_http_request_duration_seconds_count", route=feed) == 2


def test_other_parts_count_through_the_module_functions(demo_app: Starlette) -> None:
    http = Http(demo_app)
    before = http.get("/metrics").text

    metrics.source_refreshed("unchanged")
    metrics.caldav_synced("ok")
    metrics.caldav_written("create", 3)
    text = http.get("/metrics").text

    assert (
        _value(text, "confcal_source_refreshes_total", outcome="unchanged")
        - _value(before, "confcal_source_refreshes_total", outcome="unchanged")
        == 1
    )
    assert (
        _value(text, "confcal_caldav_syncs_total", result="ok")
        - _value(before, "confcal_caldav_syncs_total", result="ok")
        == 1
    )
    assert (
        _value(text, "confcal_caldav_writes_total", action="create")
        - _value(before, "confcal_caldav_writes_total", action="create")
        == 3
    )
    assert _value(text, "confcal_store_up") == 1
