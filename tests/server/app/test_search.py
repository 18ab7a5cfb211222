"""The page's search words on the server (server/pages/search.py): folded like the script's `fold`."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from feeds.model import Level, Room, Session, Speaker, Track
from server.pages.search import MAX_QUERY, card_text, fold, matching, words

START = datetime(2026, 4, 7, 9, 0, tzinfo=timezone.utc)


def session(id: str, title: str, **more: Any) -> Session:
    return Session(id=id, title=title, start=START, end=START + timedelta(minutes=30), **more)


def test_fold_drops_accents_and_case() -> None:
    assert fold("Valérian Rey ÅNGSTRÖM") == "valerian rey angstrom"


def test_card_text_is_what_the_card_shows() -> None:
    talk = session(
        "a1",
        "Fast Kernels",
        room=Room("Master Stage"),
        track=Track("Compilers"),
        level=Level("Beginner"),
        speakers=(Speaker("Ana Abreu", affiliation="Org 1"), Speaker("Bo")),
    )

    assert card_text(talk) == ("fast kernels ana abreu (org 1), bo master stage talk compilers level: beginner")


def test_every_word_must_match_somewhere() -> None:
    talks = [session("a1", "Fast Kernels"), session("b2", "Slow Kernels")]

    assert matching(talks, "kernels FAST") == {"a1"}
    assert matching(talks, "kernels") == {"a1", "b2"}
    assert matching(talks, "   ") == {"a1", "b2"}


def test_a_long_query_is_cut() -> None:
    assert words("a" * (MAX_QUERY + 50)) == ("a" * MAX_QUERY,)
