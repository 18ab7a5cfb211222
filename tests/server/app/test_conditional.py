from __future__ import annotations

import gzip
from datetime import UTC, datetime

import pytest

from server.app.conditional import (
    CALENDAR,
    Representation,
    accepts_gzip,
    etag_matches,
    http_date,
    not_modified_since,
)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("deflate, gzip;q=0.5", True),
        ("gzip;q=0", False),
        ("GZIP", True),
        ("x-gzip", True),
        ("*", True),
        ("*;q=0, gzip", True),
        ("gzip;q=0, *", False),
        ("br", False),
        ("identity", False),
        ("", False),
        ("gzip;q=nonsense", False),
    ],
)
def test_accepts_gzip(header: str, expected: bool) -> None:
    assert accepts_gzip(header) is expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ('"abc"', True),
        ('W/"abc"', True),
        ('"x", "abc"', True),
        ('"x",W/"abc" ', True),
        ("*", True),
        ('"abcd"', False),
        ('"x", "y"', False),
        ("", False),
    ],
)
def test_etag_matches_uses_weak_comparison_over_lists(
    header: str, expected: bool
) -> None:
    assert etag_matches(header, '"abc"') is expected


def test_not_modified_since_compares_at_one_second() -> None:
    modified = datetime(2026, 4, 1, 10, 0, 0, 500_000, tzinfo=UTC)

    same_second = not_modified_since("Wed, 01 Apr 2026 10:00:00 GMT", modified)
    later = not_modified_since("Wed, 01 Apr 2026 11:00:00 GMT", modified)
    earlier = not_modified_since("Wed, 01 Apr 2026 09:59:59 GMT", modified)

    assert (same_second, later, earlier) == (True, True, False)


@pytest.mark.parametrize("header", ["", "yesterday", "Wed, 99 Foo 2026 10:00:00 GMT"])
def test_unparsable_if_modified_since_is_ignored(header: str) -> None:
    assert not_modified_since(header, datetime(2026, 4, 1, tzinfo=UTC)) is False


def test_no_last_modified_is_never_not_modified() -> None:
    assert not_modified_since("Wed, 01 Apr 2026 10:00:00 GMT", None) is False


def test_http_date_is_imf_fixdate_in_gmt() -> None:
    assert (
        http_date(datetime(2026, 4, 7, 11, 0, 30, 999, tzinfo=UTC))
        == "Tue, 07 Apr 2026 11:00:30 GMT"
    )


def test_etag_is_strong_and_a_function_of_the_bytes_only() -> None:
    first = Representation(
        b"BEGIN:VCALENDAR\r\n", CALENDAR, datetime(2026, 1, 1, tzinfo=UTC)
    )
    second = Representation(b"BEGIN:VCALENDAR\r\n", CALENDAR, None)
    other = Representation(b"BEGIN:VCALENDAR\r\n\r\n", CALENDAR)

    assert first.etag == second.etag
    assert first.etag != other.etag
    assert first.etag.startswith('"') and first.etag.endswith('"')
    assert first.gzip_etag == first.etag[:-1] + '-gz"'


def test_gzip_variant_is_deterministic_and_round_trips() -> None:
    body = b"SUMMARY:Talk\r\n" * 100

    first = Representation(body, CALENDAR).gzipped
    second = Representation(body, CALENDAR).gzipped

    assert first == second
    assert gzip.decompress(first) == body
