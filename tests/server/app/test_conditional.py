from __future__ import annotations

import gzip
import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from server.snapshot.conditional import (
    CALENDAR,
    Representation,
    accepts_gzip,
    answer,
    etag_matches,
    http_date,
    not_modified_since,
    request_headers,
    respond,
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
def test_etag_matches_uses_weak_comparison_over_lists(header: str, expected: bool) -> None:
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
    assert http_date(datetime(2026, 4, 7, 11, 0, 30, 999, tzinfo=UTC)) == "Tue, 07 Apr 2026 11:00:30 GMT"


def test_etag_is_strong_and_a_function_of_the_bytes_only() -> None:
    first = Representation(b"BEGIN:VCALENDAR\r\n", CALENDAR, datetime(2026, 1, 1, tzinfo=UTC))
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


# -- cases the mutation run (bench/mutation.py) showed unwatched ---------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [(", gzip", True), ("gzip;level=1;q=0", False), ("gzip ; q=0.001", True), ("gzip; Q=0", False)],
)
def test_accepts_gzip_reads_every_parameter_and_skips_empty_items(header: str, expected: bool) -> None:
    assert accepts_gzip(header) is expected


def test_our_own_weak_etag_still_matches_by_weak_comparison() -> None:
    assert (etag_matches('"abc"', 'W/"abc"'), etag_matches('W/"abc"', 'W/"abc"'), etag_matches('"abd"', 'W/"abc"')) == (
        True,
        True,
        False,
    )


def test_if_modified_since_without_a_zone_is_read_as_utc() -> None:
    # RFC 5322's "-0000" means "no zone information": Python returns a naive datetime for it.
    modified = datetime(2026, 4, 1, 10, 0, 0, 500_000, tzinfo=UTC)

    assert (
        not_modified_since("Wed, 01 Apr 2026 10:00:00 -0000", modified),
        not_modified_since("Wed, 01 Apr 2026 09:59:59 -0000", modified),
    ) == (True, False)


def test_a_request_without_accept_encoding_gets_the_plain_body() -> None:
    from starlette.requests import Request

    body = b"SUMMARY:Talk\r\n" * 100
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": [], "query_string": b""})

    response = respond(request, Representation(body, CALENDAR), max_age=60)

    assert (response.status_code, response.body, "content-encoding" in response.headers) == (200, body, False)


def test_http_date_ignores_the_machines_zone(new_york_machine: None) -> None:
    paris = ZoneInfo("Europe/Paris")

    assert time.strftime("%Z", time.localtime(0)) == "EST"  # the fixture took effect
    assert http_date(datetime(2026, 4, 7, 13, 0, 30, tzinfo=paris)) == ("Tue, 07 Apr 2026 11:00:30 GMT")
    assert not_modified_since("Tue, 07 Apr 2026 11:00:30 GMT", datetime(2026, 4, 7, 13, 0, 30, 500, tzinfo=paris))


def test_each_answer_gets_its_own_header_list() -> None:
    rep = Representation(b"x" * 300, CALENDAR, datetime(2026, 4, 1, tzinfo=UTC))
    ask = {"max_age": 60, "head": False, "accept_encoding": "", "if_none_match": None, "if_modified_since": ""}
    _, first, _ = answer(rep, **ask)  # type: ignore[arg-type]

    first.append((b"x-added", b"by a middleware"))
    status, second, body = answer(rep, **ask)  # type: ignore[arg-type]

    assert (status, body) == (200, rep.body)
    assert second == [
        (b"etag", rep.etag.encode()),
        (b"cache-control", b"public, max-age=60"),
        (b"vary", b"Accept-Encoding"),
        (b"last-modified", b"Wed, 01 Apr 2026 00:00:00 GMT"),
        (b"content-type", CALENDAR.encode()),
        (b"content-length", b"300"),
    ]


def test_request_headers_takes_the_first_of_each_name() -> None:
    scope_headers = [
        (b"if-none-match", b'"a"'),
        (b"accept-encoding", b"gzip"),
        (b"if-none-match", b'"b"'),
        (b"accept-encoding", b"br"),
        (b"if-modified-since", b"Wed, 01 Apr 2026 00:00:00 GMT"),
    ]

    assert request_headers(scope_headers) == ("gzip", '"a"', "Wed, 01 Apr 2026 00:00:00 GMT")
    assert request_headers([]) == ("", None, "")
