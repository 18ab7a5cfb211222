"""Any text a speaker or organiser writes comes back from a feed as the same text, in all four
parsers: literal backslash sequences (`\\N`, `\\,`, `\\;`, `\\\\`), commas,
semicolons, line breaks, unicode. What iCalendar cannot carry comes back as feeds.ical.text's
`clean_text` says (CR as LF, other control characters dropped), the same in every parser.

Each Hypothesis example is one calendar of several sessions, read by one node process."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feeds.ical import render_calendar, uid
from feeds.ical.event import description
from feeds.ical.text import clean_text
from feeds.model import Conference, Room, Session, Speaker

if TYPE_CHECKING:
    from tests.interop.conftest import Fields

CONFERENCE = Conference("Text Conf", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7))
START = datetime(2026, 4, 7, 7, 0, tzinfo=UTC)

# Weighted towards what escaping is about, then anything Unicode has (no lone surrogates:
# UTF-8 cannot carry them, so no page can hold them).
TRICKY = st.sampled_from(
    ["\\", "\\N", "\\n", "\\,", "\\;", "\\\\", ",", ";", ":", "\n", "\r", "\r\n", "\t", " ", '"', "N", "n"]
)
ANY = st.characters(blacklist_categories=["Cs"])
TEXT = st.lists(st.one_of(TRICKY, ANY), max_size=30).map("".join)
NAME = TEXT.filter(lambda t: bool(t.strip()) and bool(clean_text(t).strip()))


@st.composite
def sessions(draw: st.DrawFn) -> list[Session]:
    count = draw(st.integers(min_value=1, max_value=8))
    return [
        Session(
            id=f"s{n}",
            title=draw(NAME),
            start=START + timedelta(minutes=30 * n),
            end=START + timedelta(minutes=30 * n + 25),
            description=draw(TEXT),
            room=Room(draw(NAME)),
            speakers=tuple(Speaker(name) for name in draw(st.lists(NAME, max_size=2, unique_by=str.strip))),
        )
        for n in range(count)
    ]


def expected(session: Session) -> tuple[str, str, str]:
    assert session.room is not None
    return (clean_text(session.title), clean_text(description(session, None)), clean_text(session.room.name))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=sessions())
def test_any_text_round_trips_in_all_four_parsers(
    read_fields: Callable[[bytes, Path], dict[str, Fields]], batch: list[Session]
) -> None:
    data = render_calendar(CONFERENCE, batch, title="texts")

    with tempfile.TemporaryDirectory() as folder:
        by_parser = read_fields(data, Path(folder) / "texts.ics")

    want = {uid(CONFERENCE, s): expected(s) for s in batch}
    assert by_parser == dict.fromkeys(by_parser, want)


def test_literal_backslash_sequences_come_back_as_written(
    read_fields: Callable[[bytes, Path], dict[str, Fields]], tmp_path: Path
) -> None:
    written = "Escapes \\N, \\n, \\, and \\; and \\\\ stay text"
    session = Session(id="lit", title=written, start=START, end=START, description=written, room=Room(written))

    by_parser = read_fields(render_calendar(CONFERENCE, [session], title="texts"), tmp_path / "lit.ics")

    assert by_parser == dict.fromkeys(by_parser, {uid(CONFERENCE, session): (written, written, written)})


def test_a_byte_order_mark_in_a_title_is_dropped_alike_by_every_parser(
    read_fields: Callable[[bytes, Path], dict[str, Fields]], tmp_path: Path
) -> None:
    # Found by the property test above: one parser stripped a leading U+FEFF, the others kept it.
    session = Session(id="bom", title="\ufeffTalk", start=START, end=START, room=Room("Hall\ufeff A"))

    by_parser = read_fields(render_calendar(CONFERENCE, [session], title="texts"), tmp_path / "bom.ics")

    assert by_parser == dict.fromkeys(by_parser, {uid(CONFERENCE, session): ("Talk", "", "Hall A")})
