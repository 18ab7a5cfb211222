"""Request body checks on their own: media type, the byte limit while streaming, JSON bounds and
the pick-set shape, each failure with the status it is answered with."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import pytest

from server.web.bodies import (
    MAX_PICKS,
    BodyError,
    check_json_media_type,
    parse_json,
    picks_body,
    read_limited,
)


def body(ids: list[str]) -> bytes:
    return json.dumps({"sessions": ids}).encode()


def anything(_: str) -> bool:
    return True


def status_of(fn: object, *args: object) -> tuple[int, str]:
    with pytest.raises(BodyError) as raised:
        fn(*args)  # type: ignore[operator]
    return raised.value.status, str(raised.value)


def test_exactly_max_picks_are_accepted() -> None:
    ids = [f"s{n}" for n in range(MAX_PICKS)]

    assert picks_body(body(ids), anything) == tuple(ids)


def test_one_over_max_picks_is_413() -> None:
    status, _ = status_of(picks_body, body([f"s{n}" for n in range(MAX_PICKS + 1)]), anything)

    assert status == 413


def test_repeats_do_not_count_against_the_bound() -> None:
    assert picks_body(body(["a"] * (MAX_PICKS + 10)), anything) == ("a",)


def test_several_unknown_ids_are_all_named_up_to_five() -> None:
    ids = [f"x{n}" for n in range(7)]

    status, message = status_of(picks_body, body(["ok", *ids]), lambda i: i == "ok")

    assert (status, message) == (
        400,
        "unknown session ids 'x0', 'x1', 'x2', 'x3', 'x4' and 2 more",
    )


def test_deeply_nested_arrays_are_400_not_a_recursion_error() -> None:
    hostile = b"[" * 2048 + b"]" * 2048  # 4 KB

    assert status_of(parse_json, hostile) == (400, "request body nests too deeply")


def test_an_integer_of_5000_digits_is_400_not_a_value_error() -> None:
    hostile = b'{"sessions": [' + b"9" * 5000 + b"]}"

    assert status_of(parse_json, hostile) == (
        400,
        "request body has a number over 40 characters",
    )


@pytest.mark.parametrize("constant", [b"NaN", b"Infinity", b"-Infinity"])
def test_non_json_constants_are_400(constant: bytes) -> None:
    status, _ = status_of(parse_json, b'{"sessions": [' + constant + b"]}")

    assert status == 400


def test_ordinary_numbers_still_parse() -> None:
    assert parse_json(b'{"a": [1, -2.5e3, 12345678901234567890]}') == {"a": [1.0, -2500.0, 1.2345678901234567e19]}


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", " Application/JSON ;x=y"],
)
def test_json_media_types_are_accepted(content_type: str) -> None:
    check_json_media_type(content_type)


@pytest.mark.parametrize(
    "content_type",
    [None, "", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
     "application/jsonp", "text/json"],
)  # fmt: skip
def test_other_media_types_are_415(content_type: str | None) -> None:
    status, message = status_of(check_json_media_type, content_type)

    assert (status, message) == (415, "send the body as Content-Type: application/json")


class Chunks:
    """An async byte stream that counts how much of it was consumed."""

    def __init__(self, chunk: bytes, count: int) -> None:
        self.chunk, self.count, self.taken = chunk, count, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.count):
            self.taken += 1
            yield self.chunk


def read(content_length: str | None, chunks: Chunks, limit: int) -> bytes:
    async def go() -> bytes:
        return await read_limited(content_length, chunks.__aiter__(), limit)

    return anyio.run(go)


def test_a_stream_without_content_length_stops_at_the_limit() -> None:
    stream = Chunks(b"x" * 1000, 100_000)  # 100 MB offered

    status, message = status_of(read, None, stream, 10_000)

    assert (status, message) == (413, "request body over 10000 bytes")
    assert stream.taken == 11  # 11 000 bytes: one chunk past the limit, no more


def test_a_declared_length_over_the_limit_reads_nothing() -> None:
    stream = Chunks(b"x", 10)

    status, _ = status_of(read, "10001", stream, 10_000)

    assert (status, stream.taken) == (413, 0)


def test_a_body_at_the_limit_is_read_whole() -> None:
    assert read(None, Chunks(b"x" * 100, 100), 10_000) == b"x" * 10_000


@pytest.mark.parametrize(
    ("declared", "expected"),
    [("-1", 400), ("1e3", 400), ("", 400), ("9" * 26, 413)],
)
def test_malformed_or_absurd_content_length_is_refused(declared: str, expected: int) -> None:
    status, _ = status_of(read, declared, Chunks(b"x", 1), 10_000)

    assert status == expected
