"""The real `confcal serve` process keeps a source fresh: pages on a real loopback HTTP server that
the test changes, the source added with the real CLI, and no command run after that."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from feeds.demo import DEMO_DIR, DEMO_TZ
from server.cli import main
from tests.helpers.serve_process import Running, running_confcal
from tests.helpers.source_server import CHANGED_PAGE, PageServer, page_server

CHANGED_TITLE = "Parameterized CUDA Graph Launch in PyTorch: CUDA Graphs Without Any Pain"
CHANGED_PATH = "/002_f0fe97cd188ad8b4.txt"


@pytest.fixture(scope="module")
def served_pages() -> Iterator[PageServer]:
    with page_server() as server:
        server.put_folder(DEMO_DIR)
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, served_pages: PageServer) -> Iterator[Running]:
    with running_confcal(tmp_path_factory.mktemp("serve"), "--poll", "0.5") as running:
        urls = [served_pages.base + "/" + page.name for page in sorted(DEMO_DIR.iterdir())]
        code = main(["source", "add", *urls, "--every", "2s", "--tz", DEMO_TZ, "--allow-private", "--db", running.db])
        assert code == 0
        yield running


def wait_for(condition: Callable[[], bool]) -> bool:
    for _ in range(600):  # bounded wait (~60 s on a busy machine); not a timing assertion
        if condition():
            return True
        time.sleep(0.1)
    return False


def source_list(db: str, capsys: pytest.CaptureFixture[str]) -> str:
    main(["source", "list", "--db", db])
    return capsys.readouterr().out


def titles(server: Running) -> set[str]:
    return {s["title"] for s in httpx.get(server.url + "/api/sessions").json()["sessions"]}


def test_an_unchanged_source_is_answered_304(
    server: Running, served_pages: PageServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert wait_for(lambda: "unchanged: not modified (304)" in source_list(server.db, capsys))

    assert served_pages.count(200) == 5  # the first refresh; every later one was a 304
    assert served_pages.count(304) >= 5


def test_a_changed_source_is_served_with_no_command_run(server: Running, served_pages: PageServer) -> None:
    assert CHANGED_TITLE not in titles(server)

    served_pages.put(CHANGED_PATH, CHANGED_PAGE.read_bytes())

    assert wait_for(lambda: CHANGED_TITLE in titles(server))


def test_a_damaged_source_is_not_applied_and_the_list_says_why(
    server: Running, served_pages: PageServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert wait_for(lambda: "unchanged" in source_list(server.db, capsys))  # settled
    before = httpx.get(server.url + "/feeds/all.ics").headers["etag"]

    served_pages.put(CHANGED_PATH, b"\x00\x01 not a page")

    assert wait_for(lambda: "refused" in source_list(server.db, capsys))
    listing = source_list(server.db, capsys)
    assert (
        f"refused: not applied, live schedule kept: {served_pages.base}{CHANGED_PATH}: "
        "is a binary file, not a schedule page"
    ) in listing
    assert httpx.get(server.url + "/feeds/all.ics").headers["etag"] == before


def test_a_removed_source_is_no_longer_fetched(
    server: Running, served_pages: PageServer, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["source", "remove", "1", "--db", server.db])
    assert capsys.readouterr().out == "source 1 removed; the schedule it brought in stays\n"
    time.sleep(0.5)  # a refresh in flight when it was removed may still finish
    fetched = served_pages.count(200) + served_pages.count(304)

    time.sleep(3)  # more than one 2 s interval: a refresh still scheduled would have run

    assert served_pages.count(200) + served_pages.count(304) == fetched
    assert len(titles(server)) > 0
