"""The built-in demo: an empty store is seeded with PyTorch Conference Europe 2026 at start-up, so
a fresh `confcal serve` has something to show."""

from __future__ import annotations

from typing import Protocol

from feeds.demo import DEMO_TZ, demo_sources
from feeds.model import Schedule


class IngestingStore(Protocol):
    def version(self) -> int: ...

    def ingest(self, schedule: Schedule, *, demo_seed: bool = ...) -> object: ...


def demo_schedule() -> Schedule:
    # The readers load only when the demo is seeded: `confcal build` of a store with a schedule
    # never needs them.
    from feeds.pipeline import load_schedule

    return load_schedule(demo_sources(), DEMO_TZ).schedule


def seed_demo(store: IngestingStore) -> None:
    """Ingest the demo into `store` if it holds no schedule; a store with one is left alone."""
    # version() is one small query; live() would load the whole schedule just to test for none.
    if store.version() == 0:
        store.ingest(demo_schedule(), demo_seed=True)
