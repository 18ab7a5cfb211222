"""Malformed and mutated pages never crash the parser or the merge: they parse, or fail with a
FeedsError that names the source."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feeds.demo import DEMO_DIR
from feeds.errors import FeedsError
from feeds.merge import merge
from feeds.sources.documents import Document, decode
from feeds.sources.sched import parse
from feeds.sources.sched_page import READER

SEED_LINES = (DEMO_DIR / "000_6d989ba89a10ee92.txt").read_text(encoding="utf-8").split("\n")
LINE_ALPHABET = st.characters(blacklist_categories=["Cs"])


def _parse_and_merge(text: str) -> None:
    try:
        batch = READER.read([Document("fuzz.txt", text)], "Europe/Paris")
        merge([batch], "Europe/Paris")
    except FeedsError as exc:
        # "fuzz.txt: why" or "fuzz.txt:LINE: why", one line.
        assert re.match(r"fuzz\.txt(:\d+)?: \S", str(exc)), str(exc)
        assert "\n" not in str(exc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(LINE_ALPHABET, max_size=2000))
def test_random_text(text: str) -> None:
    _parse_and_merge(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("drop"), st.integers(0, len(SEED_LINES) - 1)),
            st.tuples(st.just("dup"), st.integers(0, len(SEED_LINES) - 1)),
            st.tuples(st.just("swap"), st.integers(0, len(SEED_LINES) - 1)),
            st.tuples(st.just("junk"), st.integers(0, len(SEED_LINES) - 1), st.text(LINE_ALPHABET, max_size=80)),
            st.tuples(st.just("digit"), st.integers(0, len(SEED_LINES) - 1), st.sampled_from("0123456789")),
        ),
        max_size=25,
    )
)
def test_mutated_seed_page(mutations: list[tuple[object, ...]]) -> None:
    lines = list(SEED_LINES)
    for op, index, *rest in mutations:
        assert isinstance(index, int)
        i = index % len(lines) if lines else 0
        if not lines:
            break
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif op == "junk":
            lines.insert(i, str(rest[0]))
        elif op == "digit":
            # Corrupt digits in time lines: impossible hours, days and years must not crash.
            lines[i] = "".join(str(rest[0]) if c.isdigit() else c for c in lines[i])
    _parse_and_merge("\n".join(lines))


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_decode_or_fail_cleanly(data: bytes) -> None:
    try:
        text = decode(data, "fuzz.bin")
    except FeedsError as exc:
        assert str(exc).startswith("fuzz.bin: ")
        return
    parse(text, "fuzz.bin")


def test_crlf_and_bom_parse_exactly_like_the_original(tmp_path: Path) -> None:
    original = (DEMO_DIR / "001_1139db4cf8be8007.txt").read_bytes()
    converted = b"\xef\xbb\xbf" + original.replace(b"\n", b"\r\n")
    assert parse(decode(converted, "p"), "p") == parse(decode(original, "p"), "p")
