"""Wall times plus abbreviations become exact instants; DST edges are decided, never guessed."""

from __future__ import annotations

from datetime import date, datetime, time, timezone
from pathlib import Path

import pytest

from feeds.errors import TimeZoneError
from feeds.pipeline import load_schedule
from feeds.zones import load_zone, resolve, resolve_span, zone_for_place

PARIS = load_zone("Europe/Paris")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


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
        "Europe/Paris", "America/Chicago", None)


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
        "fix the time or the zone")


def test_page_across_midnight(fixtures: Path) -> None:
    (session,) = load_schedule([str(fixtures / "sched/across_midnight.txt")], "Europe/Paris").schedule.sessions
    assert (session.start.astimezone(timezone.utc), session.end.astimezone(timezone.utc)) == (
        utc(2026, 10, 10, 21, 30), utc(2026, 10, 10, 23, 15))


def test_page_in_another_zone(fixtures: Path) -> None:
    loaded = load_schedule([str(fixtures / "sched/chicago_cdt.txt")], "America/Chicago")
    assert [(s.kind, s.start.astimezone(timezone.utc)) for s in loaded.schedule.sessions] == [
        ("talk", utc(2026, 6, 10, 14, 0)), ("keynote", utc(2026, 6, 10, 18, 30))]
    assert loaded.schedule.conference.timezone == "America/Chicago"


def test_page_zone_taken_from_header_place_when_no_tz(fixtures: Path) -> None:
    loaded = load_schedule([str(fixtures / "sched/chicago_cdt.txt")])
    assert loaded.schedule.conference.timezone == "America/Chicago"
    assert [w.message for w in loaded.warnings] == [
        "time zone America/Chicago taken from the page header 'Chicago, IL'; pass --tz to choose another"]


@pytest.mark.parametrize(("page", "tz"), [("chicago_cdt.txt", "Europe/Paris"), ("contradicts_zone.txt", "America/New_York")])
def test_page_contradicting_tz_is_reported(fixtures: Path, page: str, tz: str) -> None:
    with pytest.raises(TimeZoneError, match=f"{page}:\\d+: .* contradicts time zone {tz}"):
        load_schedule([str(fixtures / "sched" / page)], tz)
