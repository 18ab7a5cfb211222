from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

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

    assert [(o.offset_from, o.offset_to, o.name) for o in found] == [
        (timedelta(hours=9), timedelta(hours=9), "JST")
    ]


def test_each_onset_is_found_to_the_second_between_whole_days() -> None:
    # Antarctica/Casey changed at 13:00 and 16:01 UTC: the search must narrow a day to the second.
    onsets = [o.onset for o in observances("Antarctica/Casey", date(2022, 3, 1), date(2022, 3, 4))]

    assert onsets == [datetime(2021, 3, 13, 13, 0, tzinfo=UTC), datetime(2021, 10, 2, 16, 1, tzinfo=UTC)]
