"""Fewer garbage-collector passes while a command builds a large schedule in memory.

CPython's cyclic collector runs a pass every 700 net allocations of container objects, and every
tenth, hundredth pass walks every object alive, the imported modules' included. An ingest of
10,000 sessions allocates a few million short-lived tuples, dicts and dataclasses that hold no
reference cycles (reference counting frees them), so those passes found nothing and cost a fifth
of its CPU time. While `bulk_allocation` is on, what exists already
(modules, classes) is frozen out of the collector's sight and a pass starts only after a million
allocations; cycles are still found, later. A pass walks every object made since the last one
that is still alive, so it costs about the same however rarely it starts, while objects that die
between two passes are never walked: the rarer, the less walked. Commands make next to no cyclic
garbage, so a million allocations between passes hold no memory to speak of.

Objects made at once that stay for the rest of the command (a schedule a build reads back) are
made under `lasting`: no pass walks them while they are made, and none after, where a pass every
million of them would walk them all again and again for nothing.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

BULK_THRESHOLD = 1_000_000

_bulk = 0  # how many bulk_allocation blocks are open


@contextmanager
def bulk_allocation() -> Iterator[None]:
    global _bulk
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(BULK_THRESHOLD, *before[1:])
    _bulk += 1
    try:
        yield
    finally:
        _bulk -= 1
        gc.set_threshold(*before)
        # What the block made joins the oldest generation unwalked: freezing moves every object
        # out of the collector's generations (and zeroes the count that would start a pass on
        # the next allocation), unfreezing moves them all into the oldest. A pass over the young
        # ones at the block's end walked up to a threshold's worth of objects just before a
        # command exits; their cycles are found by the next pass over every generation.
        gc.freeze()
        gc.unfreeze()


@contextmanager
def lasting() -> Iterator[None]:
    """Around making objects that hold no reference cycle and stay until the command ends: within
    `bulk_allocation`, no collector pass while they are made, and they are then frozen out of its
    sight with everything else alive (until `bulk_allocation` ends); outside it, nothing changes,
    since a long-running process (a server, a test run) must have its cycles found."""
    if not _bulk:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def release_cycles() -> None:
    """Free the reference cycles left by a piece of work just done (a conference a build wrote)
    now, not at the next full pass, which `bulk_allocation` makes rare: rendering leaves cycles
    (Jinja's macros refer to the context they were made in, which holds what the template
    shows), each holding what it refers to. Only the young generations are walked: a full pass
    walks everything alive, a build's waiting files and the snapshots they are made from
    included, and what a piece of work leaves is young when it ends."""
    gc.collect(1)
