from __future__ import annotations

from pathlib import Path

import pytest

from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.pipeline import Loaded, load_schedule

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def seed_loaded() -> Loaded:
    return load_schedule([str(DEMO_DIR)], DEMO_TZ)


@pytest.fixture(scope="session")
def fixtures() -> Path:
    return FIXTURES
