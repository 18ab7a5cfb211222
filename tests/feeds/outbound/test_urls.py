"""URL text (feeds/outbound/urls.py): the size cap over chunks (`collect`: counted across chunks,
exact at the limit, stopping at the chunk that passes it), which URLs are http, and the userinfo
that must never be stored or published with a source (`without_userinfo`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from feeds.errors import LimitExceeded
from feeds.outbound.urls import collect, is_http, without_userinfo


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


@pytest.mark.parametrize(
    ("url", "stored"),
    [
        ("https://organiser:hunter2@cal.example.org/s.ics?day=1#x", "https://cal.example.org/s.ics?day=1#x"),
        ("https://token@cal.example.org:8443/s.ics", "https://cal.example.org:8443/s.ics"),
        # An unencoded "@" in the password: the userinfo ends at the last "@" (RFC 3986 §3.2.1).
        ("http://me:p@ss@cal.example.org/", "http://cal.example.org/"),
        ("https://cal.example.org/s.ics", "https://cal.example.org/s.ics"),
    ],
)
def test_without_userinfo_keeps_everything_but_the_userinfo(url: str, stored: str) -> None:
    assert without_userinfo(url) == stored
