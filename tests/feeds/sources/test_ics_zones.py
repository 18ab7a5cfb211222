"""Each time property of an .ics event is read in its own zone, and a DURATION is an exact span."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from feeds.pipeline import load_schedule


def calendar(tmp_path: Path, *event_lines: str) -> str:
    path = tmp_path / "one.ics"
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//confcal tests//zones//EN",
        "BEGIN:VEVENT",
        "UID:one@example.org",
        "DTSTAMP:20260101T000000Z",
        "SUMMARY:One",
        *event_lines,
        "END:VEVENT",
        "END:VCALENDAR",
        "",
    ]
    path.write_text("\r\n".join(lines), encoding="utf-8")
    return str(path)


def span(path: str) -> tuple[datetime, datetime]:
    (session,) = load_schedule([path]).schedule.sessions
    return session.start, session.end


def utc(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


def test_a_dtend_in_another_zone_than_its_dtstart_is_read_in_its_own(tmp_path: Path) -> None:
    # 10:00 BST in London to 12:00 CEST in Paris: an hour, 09:00Z-10:00Z.
    path = calendar(tmp_path, "DTSTART;TZID=Europe/London:20260601T100000", "DTEND;TZID=Europe/Paris:20260601T120000")

    assert span(path) == (utc(6, 1, 9), utc(6, 1, 10))


def test_eight_in_new_york_to_eight_in_los_angeles_lasts_three_hours(tmp_path: Path) -> None:
    path = calendar(
        tmp_path, "DTSTART;TZID=America/New_York:20260601T080000", "DTEND;TZID=America/Los_Angeles:20260601T080000"
    )

    assert span(path) == (utc(6, 1, 12), utc(6, 1, 15))


def test_a_duration_across_the_spring_change_is_an_exact_hour(tmp_path: Path) -> None:
    # 01:30 CET plus one hour is 03:30 CEST; wall-clock arithmetic would land in the gap (02:30).
    path = calendar(tmp_path, "DTSTART;TZID=Europe/Paris:20260329T013000", "DURATION:PT1H")

    assert span(path) == (utc(3, 29, 0, 30), utc(3, 29, 1, 30))


def test_a_utc_end_after_a_zoned_start_keeps_both_instants(tmp_path: Path) -> None:
    path = calendar(tmp_path, "DTSTART;TZID=Asia/Kathmandu:20260601T091500", "DTEND:20260601T040000Z")

    assert span(path) == (utc(6, 1, 3, 30), utc(6, 1, 4))
