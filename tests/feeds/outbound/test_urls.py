"""The size cap over chunks (feeds/outbound/urls.py `collect`): counted across chunks, exact at
the limit, and stopping at the chunk that passes it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from feeds.errors import LimitExceeded
from feeds.outbound.urls import collect, is_http


def test_chunks_up_to_exactly_the_limit_are_joined() -> None:
    assert collect([b"ab", b"cd", b"e"], limit=5) == b"abcde"


def test_the_limit_counts_every_chunk_not_each_alone() -> None:
    with pytest.raises(LimitExceeded) as caught:
        collect([b"abc", b"def"], limit=5)

    assert str(caught.value) == "is larger than the limit of 5 bytes"


def test_reading_stops_at_the_chunk_that_passes_the_limit() -> None:
    read: list[int] = []

    def endless() -> Iterator[bytes]:
        while True:
            read.append(1)
            yield b"x" * 4

    with pytest.raises(LimitExceeded):
        collect(endless(), limit=10)

    assert len(read) == 3


@pytest.mark.parametrize(
    ("url", "expected"),
    [("https://a.example/x:y", True), ("HTTP://a.example/", True), ("ftp://a.example/", False), ("a.example", False)],
)
def test_is_http(url: str, expected: bool) -> None:
    assert is_http(url) is expected
