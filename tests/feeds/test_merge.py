"""Merging parsed pages: sessions and people are told apart by folded text of any script."""

from __future__ import annotations

from datetime import date, time

from feeds.merge import merge
from feeds.sources.sched_page import join
from feeds.sources.sched_parsed import ParsedPage, RawSession, RawSpeaker, WallSpan

SLOT = WallSpan(date(2026, 4, 7), time(11), time(11, 30), "CEST", 3)


def test_non_latin_titles_in_one_slot_stay_two_sessions_with_their_speakers() -> None:
    page = ParsedPage(
        "p.txt",
        sessions=(
            RawSession(3, SLOT, title="机器学习入门", speakers=(RawSpeaker("王伟", affiliation="Org"),), room="A"),
            RawSession(9, SLOT, title="深度学习实践", speakers=(RawSpeaker("李娜"),), room="B"),
        ),
    )

    sessions = merge([join([page], "Europe/Paris")], "Europe/Paris").schedule.sessions

    assert sorted((s.title, tuple(p.name for p in s.speakers)) for s in sessions) == [
        ("机器学习入门", ("王伟",)),
        ("深度学习实践", ("李娜",)),
    ]
    assert sorted(p.slug for s in sessions for p in s.speakers) == ["x", "x-2"]


def test_same_title_in_other_case_and_accents_is_one_session() -> None:
    page = ParsedPage(
        "p.txt",
        sessions=(
            RawSession(3, SLOT, title="Élan Vital", room="A"),
            RawSession(9, SLOT, title="elan  vital!", track="Theory"),
        ),
    )

    (session,) = merge([join([page], "Europe/Paris")], "Europe/Paris").schedule.sessions

    assert (session.title, session.room and session.room.name, session.track and session.track.name) == (
        "Élan Vital",
        "A",
        "Theory",
    )
