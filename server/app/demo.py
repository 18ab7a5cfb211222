"""The built-in demo: an empty store is seeded with PyTorch Conference Europe 2026 at start-up, so
a fresh `confcal serve` has something to show."""

from __future__ import annotations

from typing import Protocol

from feeds.demo import DEMO_TZ, demo_sources
from feeds.model import Schedule
from feeds.pipeline import load_schedule


class IngestingStore(Protocol):
    def live(self) -> Schedule | None: ...

    def ingest(self, schedule: Schedule) -> object: ...


def demo_schedule() -> Schedule:
    return load_schedule(demo_sources(), DEMO_TZ).schedule


def seed_demo(store: IngestingStore) -> None:
    """Ingest the demo into `store` if it holds no schedule; a store with one is left alone."""
    if store.live() is None:
        store.ingest(demo_schedule())
