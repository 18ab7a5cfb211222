from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest

from feeds.catalogue import CANCELLED_GRACE, FeedKind, FeedSpec, catalogue, partition, visible, visible_until
from feeds.errors import FilterError
from feeds.model import (
    Conference,
    Level,
    Room,
    Schedule,
    Session,
    Speaker,
    Status,
    Track,
)
from feeds.query import FeedQuery, feed_title, select

CEST = timezone(timedelta(hours=2))
CONF = Conference("PyTorch Conference Europe 2026", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 8))
NOW = datetime(2026, 4, 1, tzinfo=UTC)


def _session(id: str, hour: int, minutes: int = 25, **fields: Any) -> Session:
    start = datetime(2026, 4, 7, hour, tzinfo=CEST)
    end = start + timedelta(minutes=minutes)
    return Session(id=id, title=id, start=start, end=end, **fields)


MASTER, JUNIOR = Room("Master Stage"), Room("Junior Stage")
TRAINING, INFERENCE = Track("Training Systems"), Track("Inference")
INTERMEDIATE, ADVANCED = Level("Intermediate"), Level("Advanced")
SCHEDULE = Schedule(
    CONF,
    (
        _session("a", 11, room=MASTER, track=TRAINING, level=INTERMEDIATE, kind="Lightning Talk",
                 speakers=(Speaker("Valérian Rey"), Speaker("Pierre Quinton"))),
        _session("b", 10, room=JUNIOR, track=TRAINING, level=ADVANCED),
        _session("c", 12, room=MASTER, track=INFERENCE, level=ADVANCED),
        _session("d", 13, room=Room("Founders Café"), track=INFERENCE, level=INTERMEDIATE),
        _session("e", 23, 90, room=MASTER, kind="Social"),  # runs past midnight, still on the 7th
    ),
)  # fmt: skip


def _ids(sessions: list[Session]) -> list[str]:
    return [s.id for s in sessions]


def test_catalogue_lists_every_feed_with_readable_slugs() -> None:
    specs = catalogue(SCHEDULE)

    assert [(s.kind.value, s.slug) for s in specs] == [
        ("all", ""),
        ("track", "inference"),
        ("track", "training-systems"),
        ("room", "founders-cafe"),
        ("room", "junior-stage"),
        ("room", "master-stage"),
        ("speaker", "pierre-quinton"),
        ("speaker", "valerian-rey"),
        ("level", "advanced"),
        ("level", "intermediate"),
        ("day", "2026-04-07"),
        ("kind", "lightning-talk"),
        ("kind", "social"),
        ("kind", "talk"),
    ]


def test_feed_titles_say_what_the_feed_is() -> None:
    specs = {(s.kind, s.slug): s for s in catalogue(SCHEDULE)}

    assert specs[FeedKind.ROOM, "master-stage"].title == "PyTorch Conference Europe 2026 - Room: Master Stage"
    assert specs[FeedKind.DAY, "2026-04-07"].name == "Tuesday 7 April 2026"
    assert feed_title(CONF, specs[FeedKind.ALL, ""]) == "PyTorch Conference Europe 2026"


def test_query_title_names_values_from_the_schedule() -> None:
    query = FeedQuery(room=("master-stage", "junior-stage"), level=("advanced",))

    title = feed_title(CONF, query, schedule=SCHEDULE)

    assert title == "PyTorch Conference Europe 2026 - Room: Master Stage or Junior Stage, Level: Advanced"


def test_track_and_level_narrow() -> None:
    query = FeedQuery.from_params([("track", "training-systems"), ("level", "advanced")])

    assert _ids(select(SCHEDULE, query, now=NOW)) == ["b"]


def test_two_rooms_widen() -> None:
    query = FeedQuery.from_params([("room", "master-stage"), ("room", "junior-stage")])

    assert _ids(select(SCHEDULE, query, now=NOW)) == ["b", "a", "c", "e"]


def test_none_selects_the_sessions_without_a_value() -> None:
    no_track = FeedQuery.from_params([("track", "-none")])
    no_track_or_inference = FeedQuery.from_params([("track", "-none"), ("track", "inference")])

    assert _ids(select(SCHEDULE, no_track, now=NOW)) == ["e"]
    assert _ids(select(SCHEDULE, no_track_or_inference, now=NOW)) == ["c", "d", "e"]


def test_speaker_day_and_kind_filters() -> None:
    by_speaker = FeedQuery.from_params([("speaker", "valerian-rey")])
    by_day_and_kind = FeedQuery.from_params([("day", "2026-04-07"), ("kind", "social")])

    assert _ids(select(SCHEDULE, by_speaker, now=NOW)) == ["a"]
    assert _ids(select(SCHEDULE, by_day_and_kind, now=NOW)) == ["e"]


def test_query_within_a_feed_narrows_but_never_widens() -> None:
    master = FeedSpec(FeedKind.ROOM, "master-stage", "Master Stage", "t")
    query = FeedQuery.from_params([("room", "junior-stage"), ("level", "advanced")])

    assert _ids(select(SCHEDULE, FeedQuery().for_spec(master), now=NOW)) == [
        "a",
        "c",
        "e",
    ]
    assert _ids(select(SCHEDULE, query.for_spec(master), now=NOW)) == []


def test_unknown_parameter_is_refused() -> None:
    with pytest.raises(FilterError, match="'rooms'"):
        FeedQuery.from_params([("rooms", "master-stage")])


def test_repeated_values_are_kept_once_in_order() -> None:
    query = FeedQuery.from_params([("room", "b"), ("room", "a"), ("room", "b"), ("room", "")])

    assert query.room == ("b", "a")


@pytest.mark.parametrize(
    ("age", "kept"),
    [(timedelta(days=30), True), (timedelta(days=30, seconds=1), False)],
)
def test_cancelled_sessions_stay_for_the_grace_period(age: timedelta, kept: bool) -> None:
    cancelled = _session("x", 9, room=MASTER, status=Status.CANCELLED, modified=NOW - age)
    schedule = Schedule(CONF, (cancelled, *SCHEDULE.sessions))

    chosen = select(schedule, FeedQuery(room=("master-stage",)), now=NOW)

    assert ("x" in _ids(chosen)) == kept


def test_grace_period_is_configurable() -> None:
    cancelled = _session("x", 9, status=Status.CANCELLED, modified=NOW - timedelta(days=3))
    schedule = Schedule(CONF, (cancelled,))

    assert _ids(select(schedule, FeedQuery(), now=NOW, grace=timedelta(days=2))) == []
    assert _ids(select(schedule, FeedQuery(), now=NOW, grace=timedelta(days=7))) == ["x"]


def test_slugs_come_from_the_model() -> None:
    # The model's slug is authoritative, so a collision resolved upstream ("-2") is kept.
    twin = _session("t", 9, room=Room("Master  Stage", slug="master-stage-2"))
    specs = catalogue(Schedule(CONF, (twin, *SCHEDULE.sessions)))

    assert [s.slug for s in specs if s.kind is FeedKind.ROOM] == [
        "founders-cafe",
        "junior-stage",
        "master-stage",
        "master-stage-2",
    ]


def test_partition_gives_every_feed_what_select_gives() -> None:
    cancelled = _session("x", 9, room=MASTER, status=Status.CANCELLED, modified=NOW - timedelta(days=40))
    schedule = Schedule(CONF, (cancelled, *SCHEDULE.sessions))

    groups = partition(schedule, now=NOW)

    assert {(spec.kind, spec.slug): groups[spec.kind, spec.slug] for spec in catalogue(schedule)} == {
        (spec.kind, spec.slug): select(schedule, FeedQuery().for_spec(spec), now=NOW) for spec in catalogue(schedule)
    }


def test_values_equal_by_slug_but_not_the_same_object_share_one_feed() -> None:
    # As sources give them: one room twice (two objects), one speaker spelt two ways.
    schedule = Schedule(
        CONF,
        (
            _session("p", 9, room=Room("Master Stage"), speakers=(Speaker("Ada Lovelace"),)),
            _session("q", 10, room=Room("Master Stage"), speakers=(Speaker("Ada Lovelace"), Speaker("ada lovelace"))),
            _session("r", 11, room=Room("master stage"), speakers=(Speaker("ada lovelace"), Speaker("Grace Hopper"))),
        ),
    )

    groups = partition(schedule, now=NOW)
    specs = catalogue(schedule)

    assert [(spec.kind, spec.slug, spec.name) for spec in specs if spec.kind in (FeedKind.ROOM, FeedKind.SPEAKER)] == [
        (FeedKind.ROOM, "master-stage", "Master Stage"),
        (FeedKind.SPEAKER, "ada-lovelace", "Ada Lovelace"),
        (FeedKind.SPEAKER, "grace-hopper", "Grace Hopper"),
    ]
    assert {(spec.kind, spec.slug): _ids(groups[spec.kind, spec.slug]) for spec in specs} == {
        (spec.kind, spec.slug): _ids(select(schedule, FeedQuery().for_spec(spec), now=NOW)) for spec in specs
    }
    assert _ids(groups[FeedKind.SPEAKER, "ada-lovelace"]) == ["p", "q", "r"]


def test_kind_feed_is_named_in_sentence_case() -> None:
    schedule = Schedule(CONF, (_session("k", 9, kind="lightning talk"),))

    names = [s.name for s in catalogue(schedule) if s.kind is FeedKind.KIND]

    assert names == ["Lightning talk"]


def test_visible_until_is_none_when_no_cancelled_session_will_leave() -> None:
    without_date = _session("x", 9, status=Status.CANCELLED)  # kept: its cancellation has no date
    long_gone = _session("y", 9, status=Status.CANCELLED, modified=NOW - timedelta(days=40))

    until = visible_until(Schedule(CONF, (without_date, long_gone, *SCHEDULE.sessions)), NOW)

    assert until is None


def test_visible_until_is_the_first_end_of_a_grace_period_still_running() -> None:
    older = _session("x", 9, status=Status.CANCELLED, modified=NOW - timedelta(days=20))
    newer = _session("y", 9, status=Status.CANCELLED, modified=NOW - timedelta(days=2))
    schedule = Schedule(CONF, (newer, older, *SCHEDULE.sessions))

    until = visible_until(schedule, NOW)

    assert until == NOW + timedelta(days=10)
    assert until == older.modified + CANCELLED_GRACE  # type: ignore[operator]
    assert [visible(s, until) for s in (older, newer)] == [True, True]
    assert [visible(s, until + timedelta(microseconds=1)) for s in (older, newer)] == [False, True]
