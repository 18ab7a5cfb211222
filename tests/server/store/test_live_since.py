"""`Store.read_since`: a served schedule brought up to date from the rows later versions wrote."""

from __future__ import annotations

import dataclasses

from feeds.model import Schedule
from server.store import Store
from tests.helpers.store_builders import CONFERENCE, FIRST, SECOND, THIRD, schedule, six_talks, talk


def live_since(store: Store, previous: Schedule, since: int) -> Schedule | None:
    """The schedule `Store.read_since` brings `previous` up to date to."""
    found = store.read_since(previous, since)
    return None if found is None else found.schedule


def _read(store: Store) -> tuple[Schedule, int]:
    live = store.live()
    assert live is not None
    return live, store.version()


def test_a_moved_and_an_added_session_read_incrementally_equal_a_full_read(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    before, seen = _read(store)
    moved = dataclasses.replace(talks[1], start=talks[1].start.replace(hour=17), end=talks[1].end.replace(hour=17))
    store.ingest(schedule(talks[0], moved, *talks[2:], talk("Late Addition", 18, "Kathleen Booth")), now=SECOND)

    after = live_since(store, before, seen)

    assert after == store.live()


def test_sessions_no_later_version_wrote_are_the_objects_already_held(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    before, seen = _read(store)
    store.ingest(schedule(dataclasses.replace(talks[0], title="Scaling Training with FSDP3"), *talks[1:]), now=SECOND)

    after = live_since(store, before, seen)

    assert after is not None
    kept = {s.id for s in before.sessions if any(s is t for t in after.sessions)}
    assert kept == {s.id for s in before.sessions if s.title != "Scaling Training with FSDP2"}
    assert len(kept) == 5


def test_a_cancellation_two_versions_on_is_read(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    before, seen = _read(store)
    store.ingest(schedule(*talks[:5]), now=SECOND)
    store.ingest(schedule(*talks[:4], talks[5]), now=THIRD)

    after = live_since(store, before, seen)

    assert after == store.live()
    assert after is not None and sorted(s.status.value for s in after.sessions) == ["cancelled"] + ["confirmed"] * 5


def test_nothing_written_since_gives_the_schedule_held(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    before, seen = _read(store)

    assert live_since(store, before, seen) is before


def test_a_changed_conference_row_is_read_even_when_no_session_changed(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    before, seen = _read(store)
    renamed = dataclasses.replace(CONFERENCE, city="Paris 15e")
    store.ingest(schedule(*six_talks(), conference=renamed), now=SECOND)

    after = live_since(store, before, seen)

    assert after is not None
    assert after.conference == renamed
    assert after == store.live()


def test_read_since_with_the_sessions_by_id_places_the_rows_as_a_full_read_and_names_them(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    before, seen = _read(store)
    moved = dataclasses.replace(talks[2], start=talks[2].start.replace(hour=8), end=talks[2].end.replace(hour=8))
    store.ingest(schedule(*talks[:2], moved, *talks[3:], talk("Late Addition", 18, "Kathleen Booth")), now=SECOND)

    found = store.read_since(before, seen, {s.id: s for s in before.sessions})

    assert found is not None
    assert found.schedule == store.live()
    assert sorted(s.title for s in found.written) == sorted([moved.title, "Late Addition"])
