"""Fewer garbage-collector passes while a command builds a large schedule in memory.

CPython's cyclic collector runs a pass every 700 net allocations of container objects, and every
tenth, hundredth pass walks every object alive, the imported modules' included. An ingest of
10,000 sessions allocates a few million short-lived tuples, dicts and dataclasses that hold no
reference cycles (reference counting frees them), so those passes found nothing and cost a fifth
of its CPU time. While `bulk_allocation` is on, what exists already
(modules, classes) is frozen out of the collector's sight and a pass starts only after 100,000
allocations; cycles are still found, later.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

BULK_THRESHOLD = 100_000


@contextmanager
def bulk_allocation() -> Iterator[None]:
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(BULK_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
