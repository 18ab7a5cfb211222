"""Cards are made once per snapshot and session, and only for the session asked for."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from feeds.model import Conference, Room, Schedule, Session
from server.pages.cards import make_card, session_card
from server.snapshot.published import Published
from tests.helpers.app_helpers import NOW, paris

CONFERENCE = Conference("C", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7), city="Paris")
TALK = Session("s1", "Talk & more", paris(11), paris(11, 30), room=Room("Hall"))


def test_a_snapshots_session_gets_one_card_however_often_it_is_shown() -> None:
    published = Published(Schedule(CONFERENCE, (TALK,)), now=NOW)

    first, second = session_card(published, TALK), session_card(published, TALK)

    assert first is second
    assert first == make_card(CONFERENCE, TALK)


def test_a_session_the_snapshot_does_not_hold_gets_its_own_card() -> None:
    published = Published(Schedule(CONFERENCE, (TALK,)), now=NOW)
    moved = replace(TALK, title="Moved talk", start=paris(12), end=paris(12, 30))
    held = session_card(published, TALK)

    found = session_card(published, moved)

    assert found == make_card(CONFERENCE, moved)
    assert (found.start_label, session_card(published, TALK)) == ("12:00", held)
