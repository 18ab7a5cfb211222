"""One VTIMEZONE per IANA zone: RRULE blocks for the rules in force, the changes before them, the
same bytes whatever feed carries it; read back by an independent reader (dateutil's tzical) it gives
zoneinfo's offset at every change of the window."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from dateutil.tz import tzical

from feeds.ical.timezone import WINDOW_END, WINDOW_START, blocks, transitions, vtimezone_bytes, zone_source
from feeds.zones import candidates


def sub_components(tzid: str) -> list[list[str]]:
    """Each STANDARD/DAYLIGHT of the zone's VTIMEZONE as its unfolded lines."""
    text = vtimezone_bytes(tzid).decode().replace("\r\n ", "")
    found: list[list[str]] = []
    for line in text.split("\r\n"):
        if line in ("BEGIN:STANDARD", "BEGIN:DAYLIGHT"):
            found.append([])
        if found and line and not line.startswith(("END:", "BEGIN:")):
            found[-1].append(line)
    return found


def test_paris_rules_in_force_are_open_ended_rrules_with_onsets_in_the_offset_before() -> None:
    # RFC 5545 3.8.2.4: the onset is written in TZOFFSETFROM's local time: 02:00 CET, 03:00 CEST.
    assert sub_components("Europe/Paris")[-2:] == [
        [
            "DTSTART:19810329T020000",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3",
            "TZNAME:CEST",
            "TZOFFSETFROM:+0100",
            "TZOFFSETTO:+0200",
        ],
        [
            "DTSTART:19961027T030000",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
            "TZNAME:CET",
            "TZOFFSETFROM:+0200",
            "TZOFFSETTO:+0100",
        ],
    ]


def test_us_rules_that_ended_carry_until_a_day_past_their_last_onset() -> None:
    # The 1987-2006 rule's last onset is 2 April 2006 10:00Z; a day later reads alike whether a
    # reader compares UNTIL with the UTC or the local onset.
    found = [c for c in sub_components("America/New_York") if c[0] == "DTSTART:19870405T020000"]

    assert found == [
        [
            "DTSTART:19870405T020000",
            "RRULE:FREQ=YEARLY;UNTIL=20060403T070000Z;BYDAY=1SU;BYMONTH=4",
            "TZNAME:EDT",
            "TZOFFSETFROM:-0500",
            "TZOFFSETTO:-0400",
        ]
    ]


def test_a_zone_without_changes_has_one_observance_from_the_window_start() -> None:
    assert sub_components("Asia/Tokyo") == [
        ["DTSTART:19700101T000000", "TZNAME:JST", "TZOFFSETFROM:+0900", "TZOFFSETTO:+0900"]
    ]


def test_kathmandu_keeps_its_quarter_hour_offset_and_its_one_change() -> None:
    assert sub_components("Asia/Kathmandu") == [
        ["DTSTART:19700101T000000", "TZNAME:+0530", "TZOFFSETFROM:+0530", "TZOFFSETTO:+0530"],
        ["DTSTART:19860101T000000", "TZNAME:+0545", "TZOFFSETFROM:+0530", "TZOFFSETTO:+0545"],
    ]


def test_lord_howe_half_hour_daylight_time_is_a_rule_in_force() -> None:
    in_force = [
        c for c in sub_components("Australia/Lord_Howe") if not any(p.startswith("RRULE") and "UNTIL" in p for p in c)
    ]

    assert in_force[-2:] == [
        [
            "DTSTART:20080406T020000",
            "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4",
            "TZNAME:+1030",
            "TZOFFSETFROM:+1100",
            "TZOFFSETTO:+1030",
        ],
        [
            "DTSTART:20081005T020000",
            "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=10",
            "TZNAME:+11",
            "TZOFFSETFROM:+1030",
            "TZOFFSETTO:+1100",
        ],
    ]


def test_a_zone_that_left_dst_ends_its_rules_and_stays_on_standard_time() -> None:
    # Mexico City left DST after October 2022.
    last = sub_components("America/Mexico_City")[-2:]

    assert [[p for p in c if p.startswith(("RRULE", "TZOFFSETTO"))] for c in last] == [
        ["RRULE:FREQ=YEARLY;UNTIL=20220404T080000Z;BYDAY=1SU;BYMONTH=4", "TZOFFSETTO:-0500"],
        ["RRULE:FREQ=YEARLY;UNTIL=20221031T070000Z;BYDAY=-1SU;BYMONTH=10", "TZOFFSETTO:-0600"],
    ]


def test_the_definition_does_not_depend_on_the_machines_zone(new_york_machine: None) -> None:
    blocks.cache_clear()
    vtimezone_bytes.cache_clear()
    in_new_york = vtimezone_bytes("Europe/Paris")
    blocks.cache_clear()
    vtimezone_bytes.cache_clear()

    assert in_new_york.count(b"DTSTART:19810329T020000\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3\r\n") == 1


ZONES = [
    "Europe/Paris",
    "Europe/London",
    "America/New_York",
    "America/Los_Angeles",
    "America/Santiago",
    "America/Mexico_City",
    "America/Nuuk",
    "Australia/Sydney",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
    "Asia/Jerusalem",
    "Asia/Tehran",
    "Africa/Windhoek",
    "Pacific/Fiji",
    "Antarctica/Casey",
]


@pytest.mark.parametrize("tzid", ZONES)
def test_an_independent_reader_gets_zoneinfos_offset_for_wall_times_around_every_change(tzid: str) -> None:
    # A client reads "DTSTART;TZID=...:local wall time" through the VTIMEZONE: check that direction,
    # for every wall time around each change that names exactly one instant (a gap or fold wall
    # time is the event writer's business: it writes those in UTC).
    zone, read = ZoneInfo(tzid), tzical(io.StringIO(vtimezone_bytes(tzid).decode())).get(tzid)
    instants = [
        change.onset + timedelta(seconds=s)
        for change in transitions(tzid, WINDOW_START, WINDOW_END)
        for s in (-21600, -10800, -7200, -3601, -1, 0, 1, 3600, 7200, 10800, 21600)
    ]
    instants += [datetime(2040, 1, 1, tzinfo=UTC) + timedelta(days=d, hours=d % 24) for d in range(0, 365 * 20, 13)]
    walls = [(t.astimezone(zone).replace(tzinfo=None), t.astimezone(zone).utcoffset()) for t in instants]
    single = [(wall, offset) for wall, offset in walls if len(candidates(wall.date(), wall.time(), zone)) == 1]

    wrong = [(wall, offset) for wall, offset in single if wall.replace(tzinfo=read).utcoffset() != offset]

    assert (len(single) > 10, wrong) == (True, [])


def test_a_zones_source_is_the_data_zoneinfo_reads_for_it() -> None:
    data = zone_source("America/Argentina/Buenos_Aires")
    assert data is not None
    read = ZoneInfo.from_file(io.BytesIO(data), key="America/Argentina/Buenos_Aires")
    zone = ZoneInfo("America/Argentina/Buenos_Aires")
    instants = [datetime(year, month, 1, tzinfo=UTC) for year in range(1970, 2040) for month in (1, 7)]
    assert [i.astimezone(read).utcoffset() for i in instants] == [i.astimezone(zone).utcoffset() for i in instants]


def test_a_zone_zoneinfo_cannot_find_has_no_source() -> None:
    assert [zone_source(z) for z in ("Nowhere/Land", "../zoneinfo/UTC", "/etc/localtime")] == [None] * 3
