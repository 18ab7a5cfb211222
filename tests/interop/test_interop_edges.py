"""Hand-made schedules at the awkward instants: both DST changes, a session across midnight.

Each expected instant is written out in UTC, worked out by hand from the wall-clock time.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from feeds.ical import render_calendar, uid
from feeds.model import Conference, Session

# Only the type names: importing `conftest` at run time could pick up another directory's.
if TYPE_CHECKING:
    from tests.interop.conftest import ReadAll, Readings, Texts


def _z(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


# (conference, [(session id, UTC start, UTC end, what it is)])
CASES: dict[str, tuple[Conference, list[tuple[str, str, str, str]]]] = {
    "paris-fall-back": (
        Conference("Fold Conf", "Europe/Paris", date(2026, 10, 24), date(2026, 10, 25)),
        [
            ("before", "2026-10-24 22:30", "2026-10-24 23:30", "00:30-01:30 CEST"),
            (
                "first-0215",
                "2026-10-25 00:15",
                "2026-10-25 00:45",
                "02:15-02:45 CEST, first pass",
            ),
            (
                "second-0215",
                "2026-10-25 01:15",
                "2026-10-25 01:45",
                "02:15-02:45 CET, second pass",
            ),
            (
                "across-fold",
                "2026-10-24 23:30",
                "2026-10-25 01:30",
                "01:30 CEST-02:30 CET",
            ),
            ("after", "2026-10-25 02:30", "2026-10-25 03:00", "03:30-04:00 CET"),
        ],
    ),
    "paris-spring-forward": (
        Conference("Spring Conf", "Europe/Paris", date(2026, 3, 28), date(2026, 3, 29)),
        [
            (
                "across-gap",
                "2026-03-29 00:30",
                "2026-03-29 01:30",
                "01:30 CET-03:30 CEST",
            ),
            ("at-0300", "2026-03-29 01:00", "2026-03-29 02:00", "03:00-04:00 CEST"),
            ("at-0330", "2026-03-29 01:30", "2026-03-29 02:30", "03:30-04:30 CEST"),
            (
                "evening",
                "2026-03-28 19:00",
                "2026-03-28 20:00",
                "20:00-21:00 CET, the day before",
            ),
        ],
    ),
    "paris-midnight": (
        Conference(
            "PyTorch Conference Europe 2026",
            "Europe/Paris",
            date(2026, 4, 7),
            date(2026, 4, 7),
        ),
        [
            ("keynote", "2026-04-07 07:00", "2026-04-07 07:30", "09:00-09:30 CEST"),
            (
                "party",
                "2026-04-07 21:30",
                "2026-04-07 22:45",
                "23:30-00:45 CEST, across midnight",
            ),
        ],
    ),
    "new-york-fall-back": (
        Conference("NY Conf", "America/New_York", date(2026, 10, 31), date(2026, 11, 1)),
        [
            ("first-0130", "2026-11-01 05:30", "2026-11-01 05:50", "01:30 EDT"),
            ("second-0130", "2026-11-01 06:30", "2026-11-01 06:50", "01:30 EST"),
            (
                "halloween",
                "2026-10-31 22:00",
                "2026-11-01 04:00",
                "18:00 EDT-23:00 EST",
            ),
        ],
    ),
}


def _calendar(name: str) -> tuple[bytes, Readings]:
    conference, rows = CASES[name]
    sessions = [Session(id=sid, title=what, start=_z(start), end=_z(end)) for sid, start, end, what in rows]
    expected = {uid(conference, s): (s.start, s.end) for s in sessions}
    return render_calendar(conference, sessions, title=name), expected


@pytest.fixture(scope="module")
def readings(read_all: ReadAll) -> dict[str, dict[str, Readings]]:
    return read_all({name: _calendar(name)[0] for name in CASES})


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("parser", ["icalendar", "ical", "vobject", "ical.js"])
def test_parser_reads_the_expected_utc_instants(
    readings: dict[str, dict[str, Readings]], name: str, parser: str
) -> None:
    _, expected = _calendar(name)

    assert readings[name][parser] == expected


TRICKY = "Café; \\\\ backslash, comma 😀 «中文»\nsecond line " + "é" * 40


def test_four_parsers_read_escaped_and_folded_text_alike(
    read_texts: Callable[[bytes, Path], dict[str, Texts]], tmp_path: Path
) -> None:
    conference = CASES["paris-midnight"][0]
    start = _z("2026-04-07 07:00")
    session = Session(id="text", title=TRICKY, start=start, end=start, description=TRICKY * 3)
    data = render_calendar(conference, [session], title="text")

    by_parser = read_texts(data, tmp_path / "text.ics")

    expected = {uid(conference, session): (TRICKY, TRICKY * 3)}
    assert by_parser == dict.fromkeys(by_parser, expected)
