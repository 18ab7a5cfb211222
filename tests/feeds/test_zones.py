"""Wall times plus abbreviations become exact instants; DST edges are decided, never guessed."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest

from feeds.errors import TimeZoneError
from feeds.pipeline import load_schedule
from feeds.zones import fixed_offset, load_zone, resolve, resolve_span, resolve_wall, zone_for_place

PARIS = load_zone("Europe/Paris")


def utc(year: int, month: int, day: int, hour: int, minute: int) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=timezone.utc)


def test_fold_abbreviation_picks_the_instant() -> None:
    assert resolve(date(2026, 10, 25), time(2, 15), "CEST", PARIS) == utc(2026, 10, 25, 0, 15)
    assert resolve(date(2026, 10, 25), time(2, 15), "CET", PARIS) == utc(2026, 10, 25, 1, 15)


def test_gap_is_an_error() -> None:
    with pytest.raises(TimeZoneError, match="does not exist in Europe/Paris"):
        resolve(date(2026, 3, 29), time(2, 30), "CET", PARIS)


def test_contradicting_abbreviation_is_an_error() -> None:
    with pytest.raises(TimeZoneError, match="CDT contradicts time zone Europe/Paris, which shows CEST"):
        resolve(date(2026, 4, 7), time(11, 0), "CDT", PARIS)


def test_explicit_offset_is_an_instant() -> None:
    assert resolve(date(2026, 4, 7), time(9, 0), "UTC", PARIS) == utc(2026, 4, 7, 9, 0)
    assert resolve(date(2026, 4, 7), time(9, 0), "+01:00", PARIS) == utc(2026, 4, 7, 8, 0)


def test_end_before_start_is_next_day() -> None:
    start, end = resolve_span(date(2026, 10, 10), time(23, 30), time(1, 15), "CEST", PARIS)
    assert (start, end) == (utc(2026, 10, 10, 21, 30), utc(2026, 10, 10, 23, 15))


def test_span_ending_after_the_autumn_change() -> None:
    start, end = resolve_span(date(2026, 10, 25), time(1, 30), time(2, 30), "CEST", PARIS)
    assert (start, end) == (utc(2026, 10, 24, 23, 30), utc(2026, 10, 25, 0, 30))
    start, end = resolve_span(date(2026, 10, 25), time(2, 30), time(2, 45), "CET", PARIS)
    assert (start, end) == (utc(2026, 10, 25, 1, 30), utc(2026, 10, 25, 1, 45))


def test_zone_from_header_place() -> None:
    assert (zone_for_place("Paris, France"), zone_for_place("Chicago, IL"), zone_for_place("Nowhere")) == (
        "Europe/Paris",
        "America/Chicago",
        None,
    )


def test_unknown_zone_name() -> None:
    with pytest.raises(TimeZoneError, match="unknown time zone 'Mars/Olympus'"):
        load_zone("Mars/Olympus")


def test_page_fall_back_fold(fixtures: Path) -> None:
    sessions = load_schedule([str(fixtures / "sched/fall_back_fold.txt")], "Europe/Paris").schedule.sessions
    assert [(s.title, s.start.astimezone(timezone.utc), s.end.astimezone(timezone.utc)) for s in sessions] == [
        ("Before The Change", utc(2026, 10, 25, 0, 15), utc(2026, 10, 25, 0, 45)),
        ("After The Change", utc(2026, 10, 25, 1, 15), utc(2026, 10, 25, 1, 45)),
    ]


def test_page_spring_forward_gap_is_reported(fixtures: Path) -> None:
    with pytest.raises(TimeZoneError) as caught:
        load_schedule([str(fixtures / "sched/spring_forward_gap.txt")], "Europe/Paris")
    assert str(caught.value).endswith(
        "spring_forward_gap.txt:15: 2026-03-29 02:30 does not exist in Europe/Paris (clocks go forward then); "
        "fix the time or the zone"
    )


def test_page_across_midnight(fixtures: Path) -> None:
    (session,) = load_schedule([str(fixtures / "sched/across_midnight.txt")], "Europe/Paris").schedule.sessions
    assert (session.start.astimezone(timezone.utc), session.end.astimezone(timezone.utc)) == (
        utc(2026, 10, 10, 21, 30),
        utc(2026, 10, 10, 23, 15),
    )


def test_page_in_another_zone(fixtures: Path) -> None:
    loaded = load_schedule([str(fixtures / "sched/chicago_cdt.txt")], "America/Chicago")
    assert [(s.kind, s.start.astimezone(timezone.utc)) for s in loaded.schedule.sessions] == [
        ("talk", utc(2026, 6, 10, 14, 0)),
        ("keynote", utc(2026, 6, 10, 18, 30)),
    ]
    assert loaded.schedule.conference.timezone == "America/Chicago"


def test_page_zone_taken_from_header_place_when_no_tz(fixtures: Path) -> None:
    loaded = load_schedule([str(fixtures / "sched/chicago_cdt.txt")])
    assert loaded.schedule.conference.timezone == "America/Chicago"
    assert [w.message for w in loaded.warnings] == [
        "time zone America/Chicago taken from the page header 'Chicago, IL'; pass --tz to choose another"
    ]


@pytest.mark.parametrize(
    ("page", "tz"), [("chicago_cdt.txt", "Europe/Paris"), ("contradicts_zone.txt", "America/New_York")]
)
def test_page_contradicting_tz_is_reported(fixtures: Path, page: str, tz: str) -> None:
    with pytest.raises(TimeZoneError, match=f"{page}:\\d+: .* contradicts time zone {tz}"):
        load_schedule([str(fixtures / "sched" / page)], tz)


# -- DST edges, expected instants computed from the published rules, not from zoneinfo ---------------


def nth_sunday(year: int, month: int, n: int) -> date:
    """The n-th Sunday of the month (n = -1: the last one), by calendar arithmetic alone."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(6 - first.weekday()) % 7 + 7 * (n - 1))
    last = (date(year + month // 12, month % 12 + 1, 1)) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - 6) % 7)


# (zone, standard, daylight, UTC offset in standard time, spring Sunday, autumn Sunday, the local
# hour the clocks leave in spring (standard time) and in autumn (daylight time)). EU: last Sundays
# of March and October at 01:00 UTC (Directive 2000/84/EC), so 02:00 CET -> 03:00 CEST and
# 03:00 CEST -> 02:00 CET; US: second Sunday of March and first of November at 02:00 local time.
RULES = [
    ("Europe/Paris", "CET", "CEST", 1, (3, -1), (10, -1), (2, 3)),
    ("America/New_York", "EST", "EDT", -5, (3, 2), (11, 1), (2, 2)),
]


def local(day: date, hour: int, minute: int, offset_hours: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC) - timedelta(hours=offset_hours)


@pytest.mark.parametrize("year", [2026, 2027])
@pytest.mark.parametrize(("name", "std", "dst", "offset", "spring", "autumn", "hours"), RULES)
def test_both_dst_edges_spring_and_autumn(
    name: str,
    std: str,
    dst: str,
    offset: int,
    spring: tuple[int, int],
    autumn: tuple[int, int],
    hours: tuple[int, int],
    year: int,
) -> None:
    zone = load_zone(name)
    forward, back = nth_sunday(year, *spring), nth_sunday(year, *autumn)
    h = hours[0]  # spring: h:00 standard becomes h+1:00 daylight

    assert resolve(forward, time(h - 1, 59), std, zone) == local(forward, h - 1, 59, offset)
    assert resolve(forward, time(h + 1, 0), dst, zone) == local(forward, h + 1, 0, offset + 1)
    for wall in (time(h, 0), time(h, 59)):
        with pytest.raises(TimeZoneError, match=f"{forward.isoformat()} {wall:%H:%M} does not exist in {name}"):
            resolve(forward, wall, std, zone)
    with pytest.raises(TimeZoneError, match=f"{dst} contradicts time zone {name}, which shows {std} then"):
        resolve(forward, time(h - 1, 0), dst, zone)

    h = hours[1]  # autumn: h:00 daylight becomes h-1:00 standard; h-1:00 to h:00 is read twice
    assert resolve(back, time(h - 2, 59), dst, zone) == local(back, h - 2, 59, offset + 1)
    assert resolve(back, time(h - 1, 0), dst, zone) == local(back, h - 1, 0, offset + 1)
    assert resolve(back, time(h - 1, 59), dst, zone) == local(back, h - 1, 59, offset + 1)
    assert resolve(back, time(h - 1, 0), std, zone) == local(back, h - 1, 0, offset)
    assert resolve(back, time(h, 0), std, zone) == local(back, h, 0, offset)
    # Without an abbreviation the repeated hour means its first (daylight) reading.
    assert resolve(back, time(h - 1, 30), None, zone) == local(back, h - 1, 30, offset + 1)
    with pytest.raises(TimeZoneError, match=f"{std} contradicts time zone {name}, which shows {dst} then"):
        resolve(back, time(h - 2, 0), std, zone)
    with pytest.raises(TimeZoneError, match=f"{dst} contradicts time zone {name}, which shows {std} then"):
        resolve(back, time(h, 0), dst, zone)


def test_span_across_the_autumn_change_ends_at_the_first_end_time_after_the_start() -> None:
    # 03:15 exists only in CET that night; the abbreviation belongs to the start.
    day = date(2026, 10, 25)
    assert nth_sunday(2026, 10, -1) == day

    start, end = resolve_span(day, time(1, 30), time(3, 15), "CEST", PARIS)

    assert (start, end) == (local(day, 1, 30, 2), local(day, 3, 15, 1))
    assert end - start == timedelta(hours=2, minutes=45)


def test_span_whose_end_reads_earlier_only_on_the_wall_clock_ends_after_the_change() -> None:
    day = date(2026, 10, 25)

    start, end = resolve_span(day, time(2, 50), time(2, 10), "CEST", PARIS)

    assert (start, end) == (local(day, 2, 50, 2), local(day, 2, 10, 1))


def test_span_in_the_repeated_hour_ends_at_its_first_reading_after_the_start() -> None:
    day = date(2026, 10, 25)

    first = resolve_span(day, time(2, 15), time(2, 45), "CEST", PARIS)
    second = resolve_span(day, time(2, 15), time(2, 45), "CET", PARIS)
    across = resolve_span(day, time(2, 30), time(2, 15), "CET", PARIS)

    assert first == (local(day, 2, 15, 2), local(day, 2, 45, 2))
    assert second == (local(day, 2, 15, 1), local(day, 2, 45, 1))
    assert across == (local(day, 2, 30, 1), local(day + timedelta(days=1), 2, 15, 1))


def test_span_across_the_spring_change_and_one_ending_in_the_gap() -> None:
    day = date(2026, 3, 29)

    assert resolve_span(day, time(1, 30), time(3, 15), "CET", PARIS) == (local(day, 1, 30, 1), local(day, 3, 15, 2))
    with pytest.raises(TimeZoneError, match="2026-03-29 02:30 does not exist in Europe/Paris"):
        resolve_span(day, time(1, 30), time(2, 30), "CET", PARIS)
    with pytest.raises(TimeZoneError, match="2026-03-29 02:30 does not exist in Europe/Paris"):
        resolve_span(day - timedelta(days=1), time(23, 0), time(2, 30), "CET", PARIS)


def test_span_that_ends_before_it_starts_ends_on_the_next_day() -> None:
    # The documented rule (docs/organisers.md, Time zones): an end earlier than the start is on the next day.
    day = date(2026, 4, 7)

    assert resolve_span(day, time(23, 0), time(0, 30), "CEST", PARIS) == (
        local(day, 23, 0, 2),
        local(day + timedelta(days=1), 0, 30, 2),
    )
    assert resolve_span(day, time(10, 0), time(9, 59), "CEST", PARIS) == (
        local(day, 10, 0, 2),
        local(day + timedelta(days=1), 9, 59, 2),
    )
    assert resolve_span(day, time(10, 0), time(10, 0), "CEST", PARIS) == (local(day, 10, 0, 2), local(day, 10, 0, 2))


def test_span_with_a_fixed_offset_keeps_it_for_both_ends() -> None:
    day = date(2026, 10, 25)

    assert resolve_span(day, time(1, 30), time(3, 15), "UTC", PARIS) == (local(day, 1, 30, 0), local(day, 3, 15, 0))
    assert resolve_span(day, time(23, 0), time(1, 0), "+05:30", PARIS) == (
        datetime(2026, 10, 25, 17, 30, tzinfo=UTC),
        datetime(2026, 10, 25, 19, 30, tzinfo=UTC),
    )


# -- the small rules the mutation run (bench/mutation.py) showed nobody was watching -----------------


@pytest.mark.parametrize(
    ("label", "offset"),
    [
        ("UTC", timedelta(0)),
        ("gmt", timedelta(0)),
        ("Z", timedelta(0)),
        ("z", timedelta(0)),
        ("+02:00", timedelta(hours=2)),
        ("-05:00", timedelta(hours=-5)),
        ("UTC-5", timedelta(hours=-5)),
        ("GMT+0530", timedelta(hours=5, minutes=30)),
        ("+05", timedelta(hours=5)),
        ("+14:00", timedelta(hours=14)),
        ("-03:59", -timedelta(hours=3, minutes=59)),
        ("+15:00", None),
        ("+05:60", None),
        ("CEST", None),
        ("+5:3", None),
    ],
)
def test_fixed_offset_labels(label: str, offset: timedelta | None) -> None:
    zone = fixed_offset(label)

    assert (zone.utcoffset(None) if zone is not None else None) == offset


def test_resolved_instants_are_in_utc_itself() -> None:
    # Python compares datetimes of one ZoneInfo by wall time; the result must carry UTC, not a
    # zone that merely has offset 0 today (the machine's local zone, say).
    for abbreviation in ("CEST", None, "+01:00"):
        assert resolve(date(2026, 4, 7), time(11, 0), abbreviation, PARIS).tzinfo is UTC
    assert resolve(date(2026, 10, 25), time(2, 30), "CET", PARIS).tzinfo is UTC
    assert all(t.tzinfo is UTC for t in resolve_span(date(2026, 10, 25), time(1, 30), time(3, 15), "CEST", PARIS))


def test_abbreviation_matching_neither_reading_of_the_repeated_hour_names_both() -> None:
    with pytest.raises(TimeZoneError) as caught:
        resolve(date(2026, 10, 25), time(2, 30), "EST", PARIS)

    assert str(caught.value) == (
        "2026-10-25 02:30 EST contradicts time zone Europe/Paris, which shows CEST or CET then; check --tz"
    )


@pytest.mark.parametrize("name", ["", "/etc/localtime", "../../etc/passwd", "Europe/../../x", "A" * 65])
def test_zone_names_that_are_paths_or_too_long_are_refused_before_any_lookup(name: str) -> None:
    with pytest.raises(TimeZoneError) as caught:
        load_zone(name)

    assert str(caught.value) == f"unknown time zone {name!r}: give an IANA name such as Europe/Paris"


def test_zone_from_a_header_place_with_spaces() -> None:
    assert zone_for_place("New York, NY, USA") == "America/New_York"


def test_a_bare_wall_time_names_one_instant_or_is_refused() -> None:
    assert resolve_wall(datetime(2026, 4, 7, 11, 0), PARIS) == local(date(2026, 4, 7), 11, 0, 2)
    assert resolve_wall(datetime(2026, 4, 7, 11, 0), PARIS).tzinfo is UTC
    with pytest.raises(TimeZoneError) as gap:
        resolve_wall(datetime(2026, 3, 29, 2, 30), PARIS)
    with pytest.raises(TimeZoneError) as fold:
        resolve_wall(datetime(2026, 10, 25, 2, 30), PARIS)

    assert str(gap.value) == "2026-03-29 02:30 does not exist in Europe/Paris (clocks go forward then)"
    assert str(fold.value) == (
        "2026-10-25 02:30 happens twice in Europe/Paris (clocks go back then); the source does not say which"
    )
