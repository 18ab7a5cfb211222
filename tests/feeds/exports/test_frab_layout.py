"""The exports' shared layout (feeds/exports/frab_layout.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from feeds.exports.frab_layout import FrabSchedule, clock, id_hashes, layout, resolved
from feeds.model import Conference, Schedule, Session

zones = st.sampled_from([None, ZoneInfo("Europe/Paris"), ZoneInfo("Asia/Kathmandu"), ZoneInfo("America/St_Johns")])


@given(st.datetimes(timezones=zones))
def test_clock_is_strftimes_hours_and_minutes(moment: datetime) -> None:
    assert clock(moment) == moment.strftime("%H:%M")


ids = st.lists(st.text(min_size=1, max_size=12), max_size=20, unique=True)


@given(ids, st.data())
def test_id_hashes_known_before_are_the_hashes_made_anew(session_ids: list[str], data: st.DataObject) -> None:
    made = id_hashes(session_ids)
    some = data.draw(st.sets(st.sampled_from(session_ids))) if session_ids else set()

    assert id_hashes(session_ids, {i: made[i] for i in some}) == made
    assert list(made) == session_ids


def test_id_hashes_take_the_known_hash_without_making_it() -> None:
    assert id_hashes(["a", "b"], {"a": 5}) == {"a": 5, "b": id_hashes(["b"])["b"]}


def test_a_layout_with_known_hashes_numbers_as_one_without() -> None:
    start = datetime(2026, 4, 7, 9, tzinfo=UTC)
    first, second = "5ebc067ccc3895af", "65aaba9dab8fc5da"  # their hashes collide
    talks = tuple(Session(i, f"Talk {i}", start, start + timedelta(hours=1)) for i in (first, second))
    schedule = Schedule(Conference("Conf", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7)), talks)
    again = Schedule(schedule.conference, talks)  # another object: not the layout kept for the first
    hashed = id_hashes([first])[first]

    known = layout(again, id_hashes([second]))
    every = layout(Schedule(schedule.conference, talks), id_hashes([second, first]))

    # The second in id order takes the next number, with the hashes known (some or all) or made.
    assert numbers(known) == numbers(every) == numbers(layout(schedule)) == {first: hashed, second: hashed + 1}


def placed_in_id_order(hashed: dict[str, int], low: int, high: int) -> dict[str, int]:
    """The numbers as the ids take them one by one in id order, each its hash or the next free."""
    taken: dict[str, int] = {}
    for session_id in sorted(hashed):
        number = hashed[session_id]
        while number in taken.values():
            number = low if number >= high else number + 1
        taken[session_id] = number
    return taken


# Few numbers for many ids: collisions, runs that meet and runs that wrap round to the lowest.
@given(st.dictionaries(st.text(max_size=3), st.integers(3, 12), max_size=14))
def test_resolved_numbers_are_those_placed_one_by_one_in_id_order(hashed: dict[str, int]) -> None:
    assert resolved(hashed, 3, 16) == placed_in_id_order(hashed, 3, 16)


def test_resolved_moves_only_the_ids_of_a_run_with_a_collision() -> None:
    hashed = {"a": 10, "b": 10, "c": 11, "d": 14, "e": 20}

    assert resolved(hashed, 0, 100) == {"a": 10, "b": 11, "c": 12, "d": 14, "e": 20}


def numbers(view: FrabSchedule) -> dict[str, int]:
    return {number[0].id: number[1] for day in view.days for number in day.numbered}
