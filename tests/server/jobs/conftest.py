"""Fixtures for the job tests: a real SQLite store and a real loopback server of the demo pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from source_server import PageServer, page_server

from feeds.demo import DEMO_DIR
from server.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "store.sqlite"))
    yield opened
    opened.close()


@pytest.fixture
def pages() -> Iterator[PageServer]:
    with page_server() as server:
        server.put_folder(DEMO_DIR)
        yield server


@pytest.fixture
def demo_urls(pages: PageServer) -> list[str]:
    return [pages.base + "/" + page.name for page in sorted(DEMO_DIR.iterdir())]
