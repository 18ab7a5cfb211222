"""Parsing single Sched pages: structure, speaker blocks and quirks."""

from __future__ import annotations

from feeds.sources.sched import parse

PAGE = """Tuesday, April 7
\u0020
11:00 CEST

Lightning Talk: Ranges - A Study - Grace Hopper, Navy & Alan Turing, NPL
Tuesday April 7, 2026 11:00 - 11:10 CEST
First paragraph - with a dash.

Second paragraph.
Speakers
avatar for Grace Hopper

Grace Hopper

Rear Admiral, US Navy
Invented the compiler... Read More →
AT

Alan Turing

Mathematician, NPL
Tuesday April 7, 2026 11:00 - 11:10 CEST
Room 1
\u00a0 Theory
  • Audience Level Advanced
  • Slides Attached Yes
\u0020
  • Filter By Date
"""


def test_title_kind_and_speakers_from_the_title_line() -> None:
    (session,) = parse(PAGE, "page.txt").sessions
    assert (session.kind, session.title) == ("lightning talk", "Ranges - A Study")
    assert [(p.name, p.affiliation) for p in session.title_speakers] == [
        ("Grace Hopper", "Navy"),
        ("Alan Turing", "NPL"),
    ]


def test_speaker_blocks_with_avatar_or_initials() -> None:
    (session,) = parse(PAGE, "page.txt").sessions
    assert [(p.name, p.role, p.affiliation, p.bio) for p in session.speakers] == [
        ("Grace Hopper", "Rear Admiral", "US Navy", "Invented the compiler"),
        ("Alan Turing", "Mathematician", "NPL", None),
    ]


def test_description_keeps_paragraphs_and_dashes() -> None:
    (session,) = parse(PAGE, "page.txt").sessions
    assert session.description == "First paragraph - with a dash.\n\nSecond paragraph."


def test_room_track_and_bullets_but_not_the_footer() -> None:
    (session,) = parse(PAGE, "page.txt").sessions
    assert (session.room, session.track, session.level, session.slides, session.extra) == (
        "Room 1",
        "Theory",
        "Advanced",
        True,
        (),
    )


def test_twelve_hour_clock_and_line_numbers() -> None:
    text = PAGE.replace("11:00 - 11:10 CEST", "1:00pm - 1:45pm CDT")
    (session,) = parse(text, "page.txt").sessions
    assert session.span is not None
    assert (session.span.start.hour, session.span.end.minute, session.span.abbreviation) == (13, 45, "CDT")
    assert session.line == 5


def test_single_session_page_without_title_is_partial() -> None:
    text = "This schedule is automatically displayed in CEST.\n" + PAGE.split("NPL\n", 1)[1]
    (session,) = parse(text, "single.txt").sessions
    assert session.title is None
    assert session.room == "Room 1"


def test_filter_header_is_read() -> None:
    page = parse("Type: Training Systems clear filter\n" + PAGE, "p.txt")
    assert [(f.label, f.value, f.line) for f in page.facets] == [("Type", "Training Systems", 1)]


def test_impossible_time_line_is_a_defect_not_a_crash() -> None:
    page = parse(PAGE.replace("11:00 - 11:10", "25:00 - 11:10"), "p.txt")

    assert (page.sessions, page.warnings) == ((), ())
    assert [str(d) for d in page.defects] == [
        "p.txt:6: Ranges - A Study: unreadable time line 'Tuesday April 7, 2026 25:00 - 11:10 CEST' "
        "(hour must be in 0..23); the session is left out"
    ]


def test_bad_time_line_after_a_session_is_one_defect() -> None:
    text = PAGE.replace("Room 1\n", "Tuesday April 7, 2026 25:00 - 11:10 CEST\nRoom 1\n", 1)

    page = parse(text, "p.txt")

    assert [d.message for d in page.defects] == [
        "Ranges - A Study: unreadable time line 'Tuesday April 7, 2026 25:00 - 11:10 CEST' "
        "(hour must be in 0..23); the session is left out"
    ]


def test_bullets_right_after_the_room_are_read_as_bullets_not_as_the_track() -> None:
    # Sched indents a session's bullets with a no-break space; without a type line they follow the room.
    text = PAGE.replace("\u00a0 Theory\n  • Audience Level Advanced\n", "\u00a0 • Audience Level Beginner\n")

    (session,) = parse(text, "p.txt").sessions

    assert (session.room, session.track, session.level, session.slides) == ("Room 1", None, "Beginner", True)
