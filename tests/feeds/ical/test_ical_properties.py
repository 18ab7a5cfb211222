"""Property: whatever the text, the calendar is valid UTF-8, folded to 75 octets, and reads back."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import Calendar, Event

from feeds.ical import render_calendar
from feeds.ical.text import clean_text
from feeds.model import Conference, Room, Session, Speaker, Track
from tests.helpers.vevents import vevents

CONFERENCE = Conference(
    "Ünïcode; Conf, 2026",
    "Europe/Paris",
    date(2026, 4, 7),
    date(2026, 4, 8),
    venue="Paris",
)
# Characters that stress escaping (RFC 5545 3.3.11) and folding (multi-byte UTF-8).
TRICKY = st.sampled_from([",", ";", "\\", "\n", "\r\n", ":", '"', "é", "😀", "中", "\u00a0", " "])
TEXT = st.lists(st.one_of(TRICKY, st.characters(exclude_categories=["Cs"])), max_size=120).map("".join)
NAME = TEXT.filter(lambda s: bool(s.strip()))


def _as_text(raw: bytes) -> str:
    """icalendar leaves properties it has no type for (NAME, X-WR-CALNAME) escaped; read the
    value back as the TEXT it is by parsing it as a SUMMARY."""
    event = Event.from_ical(b"BEGIN:VEVENT\r\nSUMMARY:" + raw + b"\r\nEND:VEVENT\r\n")
    return str(event["SUMMARY"])


@st.composite
def sessions(draw: st.DrawFn) -> Session:
    start = datetime(2026, 4, 7, 7, tzinfo=UTC) + timedelta(minutes=draw(st.integers(0, 2000)))
    return Session(
        id=draw(st.text("abcdef0123456789", min_size=1, max_size=12)),
        title=draw(TEXT),
        start=start,
        end=start + timedelta(minutes=draw(st.integers(0, 600))),
        kind=draw(NAME),
        room=Room(draw(NAME)),
        track=Track(draw(NAME)),
        description=draw(TEXT),
        speakers=(Speaker(draw(NAME), affiliation=draw(NAME)),),
        revision=draw(st.integers(0, 1000)),
    )


@settings(max_examples=40, deadline=None)
@given(session=sessions(), title=NAME)
def test_any_text_round_trips_and_folds_cleanly(session: Session, title: str) -> None:
    data = render_calendar(CONFERENCE, [session], title=title)

    physical = data.split(b"\r\n")
    assert [line for line in physical if len(line) > 75] == []
    for line in physical:
        line.decode("utf-8")  # raises if a fold split a character
    cal = Calendar.from_ical(data)
    event = vevents(cal)[0]
    name = cal["NAME"].to_ical()
    assert str(event["SUMMARY"]) == clean_text(session.title)
    assert isinstance(name, bytes)
    assert _as_text(name) == clean_text(title)
    assert str(event["DESCRIPTION"]).startswith(clean_text(session.description.strip()))
    assert event.decoded("DTSTART") == session.start
    assert event.end == session.end
