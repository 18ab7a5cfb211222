from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar

from feeds.ical import render_session, uid
from feeds.ical.event import render_event
from feeds.model import Conference, Session, Speaker, Status, Track

MakeSession = Callable[..., Session]  # the conftest fixture's type


def _lines(data: bytes) -> list[str]:
    return data.decode().replace("\r\n ", "").split("\r\n")


def test_uid_is_session_id_at_conference_slug(conference: Conference, make_session: MakeSession) -> None:
    session = make_session(id="abc123")

    assert uid(conference, session) == "abc123@pytorch-conference-europe-2026.confcal"


def test_vevent_carries_every_required_property(conference: Conference, make_session: MakeSession) -> None:
    session = make_session()

    lines = _lines(render_event(conference, session, base_url="https://cal.example"))

    assert lines == [
        "BEGIN:VEVENT",
        "SUMMARY:Lightning Talk: TorchJD: Jacobian Descent in PyTorch",
        "DTSTART;TZID=Europe/Paris:20260407T114500",
        "DTEND;TZID=Europe/Paris:20260407T115500",
        "DTSTAMP:20260301T093000Z",
        "UID:torchjd@pytorch-conference-europe-2026.confcal",
        "SEQUENCE:1",
        "CATEGORIES:Training Systems,Lightning Talk,Intermediate",
        (
            "DESCRIPTION:Jacobian descent (JD) is an extension of gradient descent.\\n\\n"
            "Speakers: Pierre Quinton (EPFL)\\, Valérian Rey (Simplex Lab)\\n"
            "Track: Training Systems\\nLevel: Intermediate\\n"
            "https://cal.example/#session-torchjd"
        ),
        "LAST-MODIFIED:20260301T093000Z",
        "LOCATION:Master Stage\\, Paris\\, France",
        "STATUS:CONFIRMED",
        "URL:https://cal.example/#session-torchjd",
        "END:VEVENT",
        "",
    ]


def test_an_event_with_a_reminder_is_the_plain_event_plus_its_valarm(
    conference: Conference, make_session: MakeSession
) -> None:
    # With a reminder icalendar writes the event (build_event); without, the direct writer does.
    session = make_session()

    plain = _lines(render_event(conference, session, base_url="https://cal.example"))
    reminded = _lines(render_event(conference, session, base_url="https://cal.example", alarm=5))

    start, end = reminded.index("BEGIN:VALARM"), reminded.index("END:VALARM")
    assert reminded[:start] + reminded[end + 1 :] == plain


def test_a_base_url_ending_in_a_slash_gives_one_slash_before_the_anchor(
    conference: Conference, make_session: MakeSession
) -> None:
    # Ends in "X/": only the slash goes, whatever else `rstrip` might be given.
    event = Calendar.from_ical(render_session(conference, make_session(), base_url="https://cal.example/TEDX/"))

    assert str(event.walk("VEVENT")[0]["URL"]) == "https://cal.example/TEDX/#session-torchjd"


def test_categories_skip_what_is_missing_and_name_each_value_once(
    conference: Conference, make_session: MakeSession
) -> None:
    bare = make_session(track=None, level=None)
    same = make_session(track=Track("Lightning Talk"))

    lines = [_lines(render_event(conference, s)) for s in (bare, same)]

    assert [[line for line in ls if line.startswith("CATEGORIES")] for ls in lines] == [
        ["CATEGORIES:Lightning Talk"],
        ["CATEGORIES:Lightning Talk,Intermediate"],
    ]


def test_a_speaker_without_affiliation_is_named_alone(conference: Conference, make_session: MakeSession) -> None:
    session = make_session(speakers=(Speaker("Ada"), Speaker("Grace", affiliation="Navy")))

    event = Calendar.from_ical(render_session(conference, session)).walk("VEVENT")[0]

    assert str(event["DESCRIPTION"]).split("\n")[2] == "Speakers: Ada, Grace (Navy)"


def test_url_falls_back_to_the_source_link(conference: Conference, make_session: MakeSession) -> None:
    session = make_session(url="https://sched.example/event/1")

    event = Calendar.from_ical(render_session(conference, session)).walk("VEVENT")[0]

    assert str(event["URL"]) == "https://sched.example/event/1"


def test_unknown_modified_gives_fixed_dtstamp_and_no_last_modified(
    conference: Conference, make_session: MakeSession
) -> None:
    session = make_session(modified=None)

    event = Calendar.from_ical(render_session(conference, session)).walk("VEVENT")[0]

    assert event.decoded("DTSTAMP") == datetime(1970, 1, 1, tzinfo=UTC)
    assert "LAST-MODIFIED" not in event


@pytest.mark.parametrize("alarm", [None, 10])  # the direct writer, and icalendar's
def test_dtstamp_and_last_modified_are_utc_whatever_the_machines_zone(
    conference: Conference, make_session: MakeSession, new_york_machine: None, alarm: int | None
) -> None:
    session = make_session(modified=datetime(2026, 3, 1, 10, 30, tzinfo=ZoneInfo("Europe/Paris")))

    lines = _lines(render_event(conference, session, alarm=alarm))

    assert time.strftime("%Z", time.localtime(0)) == "EST"  # the fixture took effect
    assert [line for line in lines if line.startswith(("DTSTAMP", "LAST-MODIFIED"))] == [
        "DTSTAMP:20260301T093000Z",
        "LAST-MODIFIED:20260301T093000Z",
    ]


def test_cancelled_session_is_status_cancelled(conference: Conference, make_session: MakeSession) -> None:
    session = make_session(status=Status.CANCELLED, revision=2)

    event = Calendar.from_ical(render_session(conference, session)).walk("VEVENT")[0]

    assert (str(event["STATUS"]), event["SEQUENCE"]) == ("CANCELLED", 2)


def test_second_occurrence_of_a_fall_back_hour_is_written_in_utc(
    conference: Conference, make_session: MakeSession
) -> None:
    # 02:15 CET on 25 October 2026 is the repeated hour; with TZID it would read as 02:15 CEST.
    session = make_session(
        start=datetime(2026, 10, 25, 1, 15, tzinfo=UTC),
        end=datetime(2026, 10, 25, 1, 45, tzinfo=UTC),
    )

    lines = _lines(render_event(conference, session))

    assert (lines[2], lines[3]) == (
        "DTSTART:20261025T011500Z",
        "DTEND:20261025T014500Z",
    )


@pytest.mark.parametrize(
    ("start", "written"),
    [
        (datetime(2026, 10, 25, 0, 30, tzinfo=UTC), "DTSTART:20261025T003000Z"),  # 02:30 CEST, first time
        (datetime(2026, 10, 25, 1, 30, tzinfo=UTC), "DTSTART:20261025T013000Z"),  # 02:30 CET, second time
    ],
)
def test_a_session_starting_in_the_repeated_hour_and_ending_after_it_is_written_in_utc(
    conference: Conference, make_session: MakeSession, start: datetime, written: str, new_york_machine: None
) -> None:
    # Ends at 03:30 CET, a wall time that occurs once; the start alone decides.
    session = make_session(start=start, end=datetime(2026, 10, 25, 2, 30, tzinfo=UTC))

    lines = _lines(render_event(conference, session))
    event = Calendar.from_ical(render_session(conference, session)).walk("VEVENT")[0]

    assert (lines[2], lines[3]) == (written, "DTEND:20261025T023000Z")
    assert (event.decoded("DTSTART"), event.decoded("DTEND")) == (session.start, session.end)


@pytest.mark.parametrize(
    ("timezone", "written"),
    [
        # Paris springs forward at 01:00 UTC on 29 March 2026: 10:00 UTC the next day is within
        # a day of the change, so ts-ics would read a TZID time an hour off.
        ("Europe/Paris", "DTSTART:20260330T000000Z"),
        # New York changed three weeks before: the same instant is far from any change there.
        ("America/New_York", "DTSTART;TZID=America/New_York:20260329T200000"),
    ],
)
def test_a_time_within_a_day_of_a_change_of_offset_is_written_in_utc_in_that_zone_alone(
    conference: Conference, make_session: MakeSession, timezone: str, written: str
) -> None:
    # The same instant in both zones: each zone gives its own answer.
    session = make_session(start=datetime(2026, 3, 30, 0, 0, tzinfo=UTC), end=datetime(2026, 3, 30, 0, 30, tzinfo=UTC))

    lines = _lines(render_event(replace(conference, timezone=timezone), session))

    assert lines[2] == written


def test_location_does_not_repeat_venue_and_city(conference: Conference, make_session: MakeSession) -> None:
    session = make_session(room=None)

    event = Calendar.from_ical(render_session(conference, session)).walk("VEVENT")[0]

    assert str(event["LOCATION"]) == "Paris, France"


def test_method_can_be_left_out_for_caldav(conference: Conference, make_session: MakeSession) -> None:
    data = render_session(conference, make_session(), method=None)

    assert [line for line in _lines(data) if line.startswith("METHOD")] == []
    assert len(Calendar.from_ical(data).walk("VEVENT")) == 1


def test_a_zero_length_session_has_a_zero_duration_not_an_equal_dtend(conference: Conference) -> None:
    # RFC 5545 3.8.2.2: DTEND must be later than DTSTART; khal reads an equal one as an hour.
    at = datetime(2026, 4, 7, 9, 0, tzinfo=UTC)
    session = Session(id="zero", title="Doors open", start=at, end=at)

    lines = render_event(conference, session).decode().split("\r\n")

    assert [line for line in lines if line.startswith(("DTSTART", "DTEND", "DURATION"))] == [
        "DTSTART;TZID=Europe/Paris:20260407T110000",
        "DURATION:P0D",
    ]
