from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from feeds.ical.timezone import observances, vtimezone_bytes


def test_paris_spring_forward_onset_is_local_time_before_the_change() -> None:
    # RFC 5545 3.8.2.4: the onset is written in TZOFFSETFROM's local time: 02:00 CET.
    data = vtimezone_bytes("Europe/Paris", date(2026, 4, 7), date(2026, 4, 7))

    assert data.decode().split("\r\n") == [
        "BEGIN:VTIMEZONE",
        "TZID:Europe/Paris",
        "BEGIN:STANDARD",
        "DTSTART:20251026T030000",
        "TZNAME:CET",
        "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100",
        "END:STANDARD",
        "BEGIN:DAYLIGHT",
        "DTSTART:20260329T020000",
        "TZNAME:CEST",
        "TZOFFSETFROM:+0100",
        "TZOFFSETTO:+0200",
        "END:DAYLIGHT",
        "END:VTIMEZONE",
        "",
    ]


def test_dst_zone_always_has_both_standard_and_daylight() -> None:
    for first in (date(2026, 1, 10), date(2026, 4, 7), date(2026, 11, 2)):
        kinds = {o.daylight for o in observances("Europe/Paris", first, first)}

        assert kinds == {True, False}


def test_observances_cover_both_changes_of_the_year() -> None:
    found = observances("Europe/Paris", date(2026, 3, 28), date(2026, 10, 26))

    assert [(o.onset, o.offset_to, o.daylight) for o in found] == [
        (datetime(2025, 3, 30, 1, tzinfo=UTC), timedelta(hours=2), True),
        (datetime(2025, 10, 26, 1, tzinfo=UTC), timedelta(hours=1), False),
        (datetime(2026, 3, 29, 1, tzinfo=UTC), timedelta(hours=2), True),
        (datetime(2026, 10, 25, 1, tzinfo=UTC), timedelta(hours=1), False),
    ]


def test_fall_back_onset_is_written_in_summer_time() -> None:
    found = observances("Europe/Paris", date(2026, 10, 25), date(2026, 10, 25))

    assert found[-1].local_onset == datetime(2026, 10, 25, 3, 0)


def test_zone_without_changes_has_one_observance() -> None:
    found = observances("Asia/Tokyo", date(2026, 4, 7), date(2026, 4, 9))

    assert [(o.local_onset, o.offset_from, o.offset_to, o.name) for o in found] == [
        (datetime(1970, 1, 1), timedelta(hours=9), timedelta(hours=9), "JST")
    ]


CET, CEST = timedelta(hours=1), timedelta(hours=2)


@pytest.mark.parametrize(
    ("first", "before"),
    [
        # 29 March 2026 changed at 03:00: the day before the first day (30 March) began in CET.
        (date(2026, 3, 30), [(datetime(2025, 3, 30, 2), CET, CEST, "CEST", True)]),
        (date(2026, 3, 31), []),
    ],
)
def test_observances_run_from_the_two_changes_before_the_day_before_the_first_to_two_days_after_the_last(
    new_york_machine: None, first: date, before: list[tuple[datetime, timedelta, timedelta, str, bool]]
) -> None:
    # Midnights in the zone's own days, whatever the machine's zone: the change at 03:00 on
    # 25 October is after the end (midnight two days after 23 October); a New York midnight,
    # six hours later than Paris's, would take it in.
    found = observances("Europe/Paris", first, date(2026, 10, 23))

    assert [(o.local_onset, o.offset_from, o.offset_to, o.name, o.daylight) for o in found] == [
        *before,
        (datetime(2025, 10, 26, 3), CEST, CET, "CET", False),
        (datetime(2026, 3, 29, 2), CET, CEST, "CEST", True),
    ]


def test_a_zone_at_utc_in_winter_is_written_with_offset_zero() -> None:
    data = vtimezone_bytes("Europe/London", date(2026, 4, 7), date(2026, 4, 7))

    offsets = [line for line in data.decode().split("\r\n") if line.startswith("TZOFFSET")]
    assert offsets == ["TZOFFSETFROM:+0100", "TZOFFSETTO:+0000", "TZOFFSETFROM:+0000", "TZOFFSETTO:+0100"]


def test_each_onset_is_found_to_the_second_between_whole_days() -> None:
    # Antarctica/Casey changed at 13:00 and 16:01 UTC: the search must narrow a day to the second.
    onsets = [o.onset for o in observances("Antarctica/Casey", date(2022, 3, 1), date(2022, 3, 4))]

    assert onsets == [datetime(2021, 3, 13, 13, 0, tzinfo=UTC), datetime(2021, 10, 2, 16, 1, tzinfo=UTC)]
