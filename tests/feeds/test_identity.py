from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from random import Random
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feeds.identity import assign_ids, new_id
from feeds.model import Room, Session, Speaker, Status
from feeds.slug import fold

PARIS = ZoneInfo("Europe/Paris")


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 4, 7, hour, minute, tzinfo=PARIS)


def talk(
    title: str,
    hour: int,
    room: str = "Master Stage",
    speakers: tuple[str, ...] = ("Ada Lovelace",),
    minutes: int = 25,
    sid: str = "provisional",
    status: Status = Status.CONFIRMED,
) -> Session:
    return Session(
        id=sid,
        title=title,
        start=at(hour),
        end=at(hour) + timedelta(minutes=minutes),
        room=Room(room),
        speakers=tuple(Speaker(name) for name in speakers),
        status=status,
    )


def previous_schedule() -> tuple[Session, ...]:
    return (
        talk("Scaling Training with FSDP2", 10, sid="aaaaaaaaaa", speakers=("Ada Lovelace",)),
        talk("Compilers for Everyone", 11, sid="bbbbbbbbbb", speakers=("Grace Hopper",)),
        talk("Quantization in Practice", 12, sid="cccccccccc", speakers=("Alan Turing",), room="Junior Stage"),
        talk("Lunch", 13, sid="dddddddddd", speakers=()),
    )


def ids_by_title(sessions: tuple[Session, ...]) -> dict[str, str]:
    return {s.title: s.id for s in sessions}


def test_same_sessions_keep_their_ids() -> None:
    previous = previous_schedule()

    result = assign_ids([dataclasses.replace(s, id="provisional") for s in previous], previous)

    assert [s.id for s in result] == [s.id for s in previous]


def test_typo_fix_keeps_id() -> None:
    previous = previous_schedule()
    incoming = (talk("Compilers For Everyone!", 11, speakers=("Grace Hopper",)),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "bbbbbbbbbb"


def test_moved_time_keeps_id() -> None:
    previous = previous_schedule()
    incoming = (talk("Compilers for Everyone", 15, speakers=("Grace Hopper",)),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "bbbbbbbbbb"


def test_moved_room_keeps_id() -> None:
    previous = previous_schedule()
    incoming = (talk("Quantization in Practice", 12, speakers=("Alan Turing",), room="Master Stage"),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "cccccccccc"


def test_retitled_with_same_speakers_and_start_keeps_id() -> None:
    previous = previous_schedule()
    incoming = (talk("A Completely New Name", 10, speakers=("Ada Lovelace",)),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "aaaaaaaaaa"


def test_retitled_with_new_speaker_in_same_slot_keeps_id() -> None:
    previous = previous_schedule()
    incoming = (talk("Quantization Deep Dive", 12, speakers=("Barbara Liskov",), room="Junior Stage"),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "cccccccccc"


def test_typo_fixed_and_moved_keeps_id() -> None:
    previous = previous_schedule()
    incoming = (talk("Scaling Trainng with FSDP 2", 16, speakers=("Ada Lovelace",)),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "aaaaaaaaaa"


def test_two_sessions_swapping_times_keep_their_ids() -> None:
    previous = previous_schedule()
    incoming = (
        talk("Scaling Training with FSDP2", 11, speakers=("Ada Lovelace",)),
        talk("Compilers for Everyone", 10, speakers=("Grace Hopper",)),
    )

    result = assign_ids(incoming, previous)

    assert ids_by_title(result) == {
        "Scaling Training with FSDP2": "aaaaaaaaaa",
        "Compilers for Everyone": "bbbbbbbbbb",
    }


def test_repeated_title_pairs_by_closest_start() -> None:
    previous = (
        talk("Coffee Break", 10, speakers=(), sid="morning000"),
        talk("Coffee Break", 15, speakers=(), sid="afternoon0"),
    )
    incoming = (talk("Coffee Break", 15, speakers=()),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "afternoon0"


def test_unrelated_session_gets_a_new_id() -> None:
    previous = previous_schedule()
    incoming = (talk("Keynote: The Future", 9, speakers=("Linus Torvalds",), room="Main Hall"),)

    result = assign_ids(incoming, previous)

    assert result[0].id == new_id(incoming[0])
    assert len(result[0].id) == 10


def test_cancelled_session_coming_back_gets_its_old_id() -> None:
    previous = (
        talk("Compilers for Everyone", 11, speakers=("Grace Hopper",), sid="bbbbbbbbbb", status=Status.CANCELLED),
    )
    incoming = (talk("Compilers for Everyone", 11, speakers=("Grace Hopper",)),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "bbbbbbbbbb"


def test_confirmed_previous_is_preferred_over_cancelled() -> None:
    previous = (
        talk("Lunch", 13, speakers=(), sid="cancelled0", status=Status.CANCELLED),
        talk("Lunch", 13, speakers=(), sid="confirmed0"),
    )
    incoming = (talk("Lunch", 13, speakers=()),)

    result = assign_ids(incoming, previous)

    assert result[0].id == "confirmed0"


def test_matching_is_one_to_one_and_new_ids_are_unique() -> None:
    previous = (talk("Lunch", 13, speakers=(), sid="lunch00000"),)
    incoming = (talk("Lunch", 13, speakers=()), talk("Lunch", 13, speakers=()))

    result = assign_ids(incoming, previous)

    assert [s.id for s in result].count("lunch00000") == 1
    assert len({s.id for s in result}) == 2


def test_new_id_colliding_with_a_previous_id_is_rehashed() -> None:
    incoming = (talk("Brand New", 9, speakers=("Someone Else",), room="Elsewhere"),)
    previous = (talk("Unrelated", 17, sid=new_id(incoming[0]), speakers=("Nobody",), room="Other"),)

    result = assign_ids(incoming, previous)

    assert result[0].id == new_id(incoming[0], 1)


def test_result_does_not_depend_on_input_order() -> None:
    previous = previous_schedule()
    incoming = [
        talk("Compilers for Everyone", 10, speakers=("Grace Hopper",)),
        talk("Scaling Training with FSDP2", 11, speakers=("Ada Lovelace",)),
        talk("New Talk", 14, speakers=("X Y",)),
        talk("Lunch", 13, speakers=()),
    ]

    forward = ids_by_title(assign_ids(incoming, previous))
    backward = ids_by_title(assign_ids(list(reversed(incoming)), list(reversed(previous))))

    assert forward == backward


def test_other_fields_are_left_alone() -> None:
    incoming = (talk("Lunch", 13, speakers=()),)

    result = assign_ids(incoming, ())

    assert result[0] == dataclasses.replace(incoming[0], id=result[0].id)


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [("Compilers For Everyone!", "compilers for everyone"), ("Valérian  Rey - TorchJD", "valerian rey torchjd")],
)
def test_fold(raw: str, normalized: str) -> None:
    assert fold(raw) == normalized


def test_listed_twice_with_different_descriptions_each_keeps_its_id() -> None:
    first = dataclasses.replace(talk("Lunch", 13, speakers=()), description="Hall A")
    second = dataclasses.replace(first, description="Hall B")
    stored = assign_ids([first, second], ())

    result = assign_ids([second, first], stored)

    assert {s.description: s.id for s in result} == {s.description: s.id for s in stored}


_titles = st.sampled_from(["Lunch", "Compilers", "Compilers!", "Graph Breaks", "Quantization", "Keynote"])
_sessions = st.builds(
    talk,
    title=_titles,
    hour=st.integers(min_value=9, max_value=12),
    room=st.sampled_from(["Master Stage", "Junior Stage"]),
    speakers=st.lists(st.sampled_from(["Ada Lovelace", "Grace Hopper", "Alan Turing"]), max_size=2, unique=True).map(
        tuple
    ),
)


def facts(s: Session) -> tuple[str, datetime, str, tuple[str, ...], str]:
    return (s.title, s.start, s.room.name if s.room else "", tuple(p.name for p in s.speakers), s.id)


@settings(max_examples=60, deadline=None)
@given(st.lists(_sessions, max_size=8), st.randoms(use_true_random=False))
def test_reingesting_the_same_sessions_in_any_order_keeps_every_id(sessions: list[Session], rnd: Random) -> None:
    stored = assign_ids(sessions, ())
    shuffled = list(sessions)
    rnd.shuffle(shuffled)

    result = assign_ids(shuffled, stored)

    assert sorted(map(facts, result)) == sorted(map(facts, stored))
    assert len({s.id for s in result}) == len(result)


@settings(max_examples=60, deadline=None)
@given(st.lists(_sessions, max_size=8), st.lists(_sessions, max_size=8))
def test_ids_are_unique_and_never_taken_from_two_previous_sessions(
    previous: list[Session], incoming: list[Session]
) -> None:
    stored = assign_ids(previous, ())

    result = assign_ids(incoming, stored)

    assert len({s.id for s in result}) == len(result)
    assert all(len(s.id) == 10 for s in result)


def test_source_id_matches_first_even_when_everything_else_changed() -> None:
    previous = (
        dataclasses.replace(talk("Opening", 9, sid="aaaaaaaaaa", speakers=("Ada Lovelace",)), source_id="ev-1"),
        dataclasses.replace(talk("Closing", 17, sid="bbbbbbbbbb", speakers=("Grace Hopper",)), source_id="ev-2"),
    )
    # The two swapped titles, times and speakers: the fuzzy stages would pair them the other way.
    incoming = (
        dataclasses.replace(talk("Closing", 17, speakers=("Grace Hopper",)), source_id="ev-1"),
        dataclasses.replace(talk("Opening", 9, speakers=("Ada Lovelace",)), source_id="ev-2"),
    )

    result = assign_ids(incoming, previous)

    assert [(s.source_id, s.id) for s in result] == [("ev-1", "aaaaaaaaaa"), ("ev-2", "bbbbbbbbbb")]


def test_a_source_id_shared_by_several_sessions_is_not_used() -> None:
    previous = (
        dataclasses.replace(talk("Opening", 9, sid="aaaaaaaaaa"), source_id="46939"),
        dataclasses.replace(talk("Closing", 17, sid="bbbbbbbbbb", speakers=("Grace Hopper",)), source_id="46939"),
    )
    incoming = (
        dataclasses.replace(talk("Closing", 17, speakers=("Grace Hopper",)), source_id="46939"),
        dataclasses.replace(talk("Opening", 9), source_id="46939"),
    )

    result = assign_ids(incoming, previous)

    assert [(s.title, s.id) for s in result] == [("Closing", "bbbbbbbbbb"), ("Opening", "aaaaaaaaaa")]
