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
from tests.interop.clients import CLIENTS, ReadAll, Readings

# Only the type names: importing `conftest` at run time could pick up another directory's.
if TYPE_CHECKING:
    from tests.interop.conftest import Texts


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
    "los-angeles-dst-morning": (
        Conference("SCaLE-shaped", "America/Los_Angeles", date(2025, 3, 6), date(2025, 3, 9)),
        [
            ("fun-walk", "2025-03-09 15:00", "2025-03-09 16:00", "08:00-09:00 PDT, the DST morning"),
            ("late-night", "2025-03-09 09:30", "2025-03-09 09:55", "01:30-01:55 PST, before the gap"),
            ("saturday", "2025-03-08 18:00", "2025-03-08 19:00", "10:00-11:00 PST"),
        ],
    ),
    "sydney-before-fall-back": (
        Conference("Sydney Conf", "Australia/Sydney", date(2026, 4, 3), date(2026, 4, 5)),
        [
            ("southern-summer", "2026-04-04 06:00", "2026-04-04 07:00", "17:00-18:00 AEDT, the day before"),
            ("sunday", "2026-04-05 00:00", "2026-04-05 01:00", "10:00-11:00 AEST"),
        ],
    ),
    "santiago-both-changes": (
        Conference("Santiago Conf", "America/Santiago", date(2026, 4, 4), date(2026, 9, 6)),
        [
            ("saturday-night", "2026-04-05 01:00", "2026-04-05 02:00", "22:00-23:00 -03"),
            ("sunday-april", "2026-04-05 14:00", "2026-04-05 15:00", "10:00-11:00 -04"),
            ("sunday-september", "2026-09-06 13:00", "2026-09-06 14:00", "10:00-11:00 -03"),
        ],
    ),
    "kathmandu": (
        Conference("Kathmandu Conf", "Asia/Kathmandu", date(2026, 5, 1), date(2026, 5, 1)),
        [("quarter-hour", "2026-05-01 03:15", "2026-05-01 04:00", "09:00-09:45 +0545")],
    ),
    "lord-howe-half-hour-dst": (
        Conference("Lord Howe Conf", "Australia/Lord_Howe", date(2026, 4, 4), date(2026, 10, 4)),
        [
            ("summer", "2026-04-03 23:00", "2026-04-04 00:00", "10:00-11:00 +11"),
            ("winter", "2026-04-04 23:30", "2026-04-05 00:30", "10:00-11:00 +1030"),
            ("summer-again", "2026-10-03 22:00", "2026-10-03 23:00", "09:00-10:00 +11"),
        ],
    ),
    # khal expands a VTIMEZONE's rules only up to 2037.
    "paris-years-ahead": (
        Conference("Paris 2037", "Europe/Paris", date(2037, 7, 1), date(2037, 12, 1)),
        [
            ("summer", "2037-07-01 08:00", "2037-07-01 09:00", "10:00-11:00 CEST, a rule in force"),
            ("winter", "2037-12-01 09:00", "2037-12-01 10:00", "10:00-11:00 CET"),
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
@pytest.mark.parametrize("parser", CLIENTS)
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
