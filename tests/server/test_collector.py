"""What the cyclic collector does while a command allocates in bulk (server/collector.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from server.collector import bulk_allocation, lasting


@pytest.fixture
def passes() -> Iterator[list[int]]:
    """The generation of each collector pass that starts while the test runs."""
    started: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield started
    finally:
        gc.callbacks.remove(note)


def made(count: int) -> list[list[int]]:
    """`count` containers (lists are tracked by the collector from birth)."""
    return [[n] for n in range(count)]


def test_objects_made_lasting_within_a_bulk_allocation_are_walked_by_no_pass(passes: list[int]) -> None:
    with bulk_allocation():
        gc.set_threshold(1_000)  # (the block restores the threshold from before it)
        frozen = gc.get_freeze_count()
        with lasting():
            kept = made(3_000)  # three times the threshold: passes would start
        walked = len(passes)
        assert gc.get_freeze_count() >= frozen + len(kept)
        assert gc.isenabled()
    assert walked == 0


def test_lasting_outside_a_bulk_allocation_leaves_the_collector_as_it_is(passes: list[int]) -> None:
    frozen = gc.get_freeze_count()
    with lasting():
        kept = made(10_000)
    assert gc.get_freeze_count() == frozen
    assert len(passes) > 0
    assert len(kept) == 10_000


def test_a_bulk_allocation_ends_with_nothing_frozen() -> None:
    with bulk_allocation(), lasting():
        made(1_000)
    assert gc.get_freeze_count() == 0


def test_a_bulk_allocation_ends_without_a_pass_over_what_it_made(passes: list[int]) -> None:
    with bulk_allocation():
        kept = made(3_000)  # more than the threshold the block ends with (700 by default)
        walked = len(passes)

    more = made(10)  # an allocation past the threshold would start a pass here
    assert (walked, len(passes)) == (0, 0)
    assert (len(kept), len(more)) == (3_000, 10)


def test_lasting_keeps_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with bulk_allocation(), lasting():
            made(1_000)
        assert not gc.isenabled()
    finally:
        gc.enable()
