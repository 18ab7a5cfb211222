from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "store.sqlite"))
    yield opened
    opened.close()
