"""The direct VEVENT writer gives exactly the bytes icalendar writes for the same event."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from icalendar.parser import Contentline

from feeds.ical.contentline import well_folded
from feeds.ical.event import build_event, render_event
from feeds.ical.writer import fold, writes_tzid
from feeds.model import Conference, Level, Room, Session, Speaker, Status, Track
from feeds.pipeline import load_schedule

# Characters that stress escaping and folding: the escapes icalendar will not leave at a line's
# end, multi-byte UTF-8 of every length, and control characters clean_text drops.
TRICKY = st.sampled_from(
    [",", ";", "\\", "^", "\n", "\r\n", ":", '"', "é", "😀", "中", "\u00a0", " ", "\x01", "\ufeff"]
)
TEXT = st.lists(st.one_of(TRICKY, st.characters(exclude_categories=["Cs"])), max_size=200).map("".join)
NAME = TEXT.filter(lambda s: bool(s.strip()))
ZONES = st.sampled_from(["Europe/Paris", "America/New_York", "Asia/Kolkata", "UTC", "Etc/GMT-1"])


@st.composite
def conferences(draw: st.DrawFn) -> Conference:
    return Conference(
        draw(NAME),
        draw(ZONES),
        date(2026, 4, 7),
        date(2026, 11, 8),
        venue=draw(st.none() | NAME),
        city=draw(st.none() | NAME),
        slug="conf-2026",
    )


@st.composite
def sessions(draw: st.DrawFn) -> Session:
    # Across both 2026 DST changes in Europe and America, fold hours included.
    start = datetime(2026, 3, 7, 7, tzinfo=UTC) + timedelta(minutes=15 * draw(st.integers(0, 24_000)))
    return Session(
        id=draw(st.text("abcdef0123456789", min_size=1, max_size=12)),
        title=draw(TEXT),
        start=start,
        end=start + timedelta(minutes=draw(st.integers(0, 600))),
        kind=draw(st.sampled_from(["talk", "Lightning Talk", ""])),
        room=draw(st.none() | NAME.map(Room)),
        track=draw(st.none() | NAME.map(Track)),
        level=draw(st.none() | NAME.map(Level)),
        description=draw(TEXT),
        speakers=tuple(
            Speaker(name, affiliation=affiliation)
            for name, affiliation in draw(st.lists(st.tuples(NAME, st.none() | NAME), max_size=3))
        ),
        revision=draw(st.integers(0, 1000)),
        status=draw(st.sampled_from(Status)),
        url=draw(st.none() | st.just("https://sched.example/e/1")),
        modified=draw(
            st.none()
            | st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2027, 1, 1), timezones=st.just(UTC))
        ),
    )


@settings(max_examples=300, deadline=None)
@given(
    conference=conferences(),
    session=sessions(),
    base_url=st.none() | st.just("https://cal.example.org/c/conf-2026/"),
)
def test_direct_writer_equals_icalendar(conference: Conference, session: Session, base_url: str | None) -> None:
    expected = build_event(conference, session, base_url=base_url).to_ical()

    written = render_event(conference, session, base_url=base_url)

    # well_folded too: render_event checks only what icalendar writes (feeds.ical.contentline).
    assert (written, well_folded(written)) == (expected, True)


@pytest.mark.parametrize("sample", ["fosdem_2025_schedule.xml", "ccc_38c3_2024_schedule.xml"])
def test_direct_writer_equals_icalendar_on_real_schedules(shared_data: Path, sample: str) -> None:
    schedule = load_schedule([str(shared_data / sample)]).schedule
    conference = schedule.conference

    written = [render_event(conference, s, base_url="https://cal.example.org/") for s in schedule.sessions]

    assert written == [
        build_event(conference, s, base_url="https://cal.example.org/").to_ical() for s in schedule.sessions
    ]


@pytest.mark.parametrize("escape", ["\\", "^"])
def test_fold_never_ends_a_line_with_an_escape_character(escape: str) -> None:
    line = "DESCRIPTION:" + "x" * 61 + escape + "n" + "y" * 100

    folded = fold(line)

    assert folded.split(b"\r\n ")[0] == ("DESCRIPTION:" + "x" * 61).encode()


def test_utc_is_left_to_icalendar() -> None:
    assert (writes_tzid("Europe/Paris"), writes_tzid("UTC")) == (True, False)


@settings(max_examples=500, deadline=None)
@given(
    st.integers(0, 150),
    st.lists(
        st.one_of(
            TRICKY.filter(lambda c: "\n" not in c), st.characters(exclude_characters="\n", exclude_categories=["Cs"])
        ),
        max_size=300,
    ),
)
# An escape character, or one after a multi-byte character, where the first or second line ends.
@example(68, ["\\", "n"])
@example(67, ["é", "^", "n"])
@example(141, ["^", "^"])
def test_fold_is_icalendars_fold_for_any_line(padding: int, chars: list[str]) -> None:
    """The calendar header folds its title lines with `fold` too (feeds.ical.calendar._header)."""
    line = "NAME:" + "x" * padding + "".join(chars)

    assert fold(line) == Contentline(line).to_ical()  # type: ignore[no-untyped-call]  # icalendar leaves Contentline unannotated
