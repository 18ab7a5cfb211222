"""khal through vdirsyncer (tests/helpers/khal.py) reads a subscription, a CalDAV calendar and one
of our feeds served by a real `confcal serve` as the other parsers do, and what it warns about
fails the test."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest
from icalendar import Calendar

from tests.helpers.khal import KhalEvent, read_caldav, read_subscription
from tests.helpers.serve_process import running_confcal
from tests.helpers.shared_caldav import SharedServer
from tests.helpers.source_server import page_server

LONG_UID = "a-uid-long-enough-to-be-folded-by-any-writer-that-folds-at-75-octets@confcal.example"
SMALL = f"""BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//confcal tests//khal//EN
BEGIN:VEVENT
UID:{LONG_UID[:60]}
 {LONG_UID[60:]}
DTSTAMP:20260101T000000Z
DTSTART;TZID=Europe/Paris:20260329T013000
DTEND;TZID=Europe/Paris:20260329T033000
SUMMARY:Across the spring-forward night
LOCATION:Room 1\\, upstairs
URL:https://confcal.example/s/1
END:VEVENT
BEGIN:VEVENT
UID:day@confcal.example
DTSTAMP:20260101T000000Z
DTSTART;VALUE=DATE:20260330
DTEND;VALUE=DATE:20260401
SUMMARY:Two whole days
END:VEVENT
END:VCALENDAR
""".replace("\n", "\r\n").encode()


def utc(year: int, month: int, day: int, hour: int, minute: int) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def test_a_subscription_reads_in_utc_with_its_uids_and_texts(tmp_path: Path) -> None:
    with page_server() as server:
        url = server.put("/small.ics", SMALL)

        events = read_subscription(url, tmp_path)

    assert events == [
        KhalEvent(
            LONG_UID,
            utc(2026, 3, 29, 0, 30),
            utc(2026, 3, 29, 1, 30),
            "Across the spring-forward night",
            "Room 1, upstairs",
            "",
            "https://confcal.example/s/1",
        ),
        KhalEvent("day@confcal.example", date(2026, 3, 30), date(2026, 4, 1), "Two whole days", "", "", ""),
    ]


def test_a_feed_served_by_confcal_reads_as_icalendar_reads_it(tmp_path: Path) -> None:
    with running_confcal(tmp_path, "--poll", "5") as server:
        feed = httpx.get(f"{server.url}/feeds/all.ics").content

        events = read_subscription(f"{server.url}/feeds/all.ics", tmp_path / "khal")

    expected = {
        str(e["UID"]): (e.decoded("DTSTART").astimezone(UTC), e.decoded("DTEND").astimezone(UTC))
        for e in Calendar.from_ical(feed).walk("VEVENT")
    }
    assert (len(events), {e.uid: (e.start, e.end) for e in events}) == (28, expected)


def test_a_caldav_calendar_reads_through_the_caldav_storage(sabre: SharedServer, tmp_path: Path) -> None:
    calendar = sabre.new_calendar()
    one = SMALL.split(b"BEGIN:VEVENT\r\nUID:day")[0] + b"END:VCALENDAR\r\n"
    sabre.request("PUT", f"{calendar}one.ics", one, {"Content-Type": "text/calendar"})

    events = read_caldav(calendar, sabre.username, sabre.password, tmp_path)

    assert [(e.uid, e.start, e.end) for e in events] == [(LONG_UID, utc(2026, 3, 29, 0, 30), utc(2026, 3, 29, 1, 30))]


def test_what_khal_warns_about_fails_the_test(tmp_path: Path) -> None:
    # DTEND equal to DTSTART on an all-day event: khal warns and guesses one day.
    bad = SMALL.replace(b"DTEND;VALUE=DATE:20260401", b"DTEND;VALUE=DATE:20260330")
    with page_server() as server:
        url = server.put("/bad.ics", bad)

        with pytest.raises(pytest.fail.Exception) as failed:
            read_subscription(url, tmp_path)

    assert str(failed.value).startswith("khal warned: ")
