"""`confcal serve` as a real process: uvicorn on a free loopback port, polled until up, stopped at
the end. An ingest into its store is picked up without a restart."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from feeds.demo import DEMO_TZ, demo_sources
from feeds.pipeline import load_schedule
from server.cli import main
from server.store import Store
from tests.helpers.loaded import loaded
from tests.helpers.serve_process import Running, running_confcal

CHANGED_PAGE = Path(__file__).resolve().parents[1] / "app" / "fixtures" / "002_changed.txt"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with running_confcal(tmp_path_factory.mktemp("serve"), "--poll", "0.2") as running:
        yield running


def test_serves_the_demo_feed_with_caching_headers(server: Running) -> None:
    reply = httpx.get(server.url + "/feeds/all.ics", headers={"accept-encoding": "gzip"})

    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/calendar; charset=utf-8"
    assert reply.headers["content-encoding"] == "gzip"
    assert reply.content.count(b"BEGIN:VEVENT") == 28
    revalidated = httpx.get(
        server.url + "/feeds/all.ics",
        headers={"accept-encoding": "gzip", "if-none-match": reply.headers["etag"]},
    )
    assert revalidated.status_code == 304


def test_head_over_the_wire(server: Running) -> None:
    get = httpx.get(server.url + "/api/feeds", headers={"accept-encoding": "identity"})
    head = httpx.head(server.url + "/api/feeds", headers={"accept-encoding": "identity"})

    assert (head.status_code, head.content) == (200, b"")
    assert head.headers["content-length"] == str(len(get.content))


def test_bad_path_over_the_wire_is_not_a_server_error(server: Running) -> None:
    with httpx.Client() as client:
        request = client.build_request("GET", server.url + "/feeds/room/x.ics")
        request.url = request.url.copy_with(raw_path=b"/feeds/room/..%2F%00" + b"a" * 5000 + b".ics")
        reply = client.send(request)

    assert reply.status_code in (400, 404)


def test_an_ingest_is_served_without_a_restart(server: Running) -> None:
    before = httpx.get(server.url + "/feeds/all.ics").headers["etag"]
    untouched = httpx.get(server.url + "/feeds/track/training-systems.ics").headers["etag"]
    sources = [s for s in demo_sources() if "002_" not in Path(s).name] + [str(CHANGED_PAGE)]
    with Store.open(server.db) as store:
        store.ingest(load_schedule(sources, DEMO_TZ).schedule)

    after = before
    for _ in range(300):  # the server polls every 0.2 s; bounded wait, no timing assertion
        after = httpx.get(server.url + "/feeds/all.ics").headers["etag"]
        if after != before:
            break
        time.sleep(0.1)

    assert after != before
    assert httpx.get(server.url + "/feeds/track/training-systems.ics").headers["etag"] == untouched


@pytest.mark.parametrize(
    "option",
    [
        ["--port", "70000"],
        ["--port", "http"],
        ["--poll", "0"],
        ["--poll", "nan"],
        ["--max-age", "-1"],
        ["--base-url", "cal.example.org"],
    ],
)
def test_bad_options_are_usage_errors(option: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", *option])

    assert exit_info.value.code == 2


def test_serve_checks_its_store_before_it_loads_sqlalchemy_the_jobs_or_the_server() -> None:
    # What `confcal serve` loads before it starts the check: the check runs while the rest loads.
    found = loaded("server.commands.serve", packages=("sqlalchemy", "huey", "granian", "starlette"))

    assert found == []
