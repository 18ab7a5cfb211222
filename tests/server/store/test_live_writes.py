"""`Store.live`'s `writes`: each session's row named by the write that made it, so a build can key
a session's files by that name instead of by every field of the session."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from server.store import Store
from server.store.store import RowWrites
from tests.helpers.store_builders import FIRST, SECOND, THIRD, schedule, six_talks


def _writes(store: Store) -> dict[str, str]:
    """Each session's id and the name of the write that made its row."""
    writes = RowWrites()
    live = store.live(writes=writes)
    assert live is not None
    return {s.id: name for s in live.sessions if (name := writes.name(s.id)) is not None}


def test_every_session_read_is_named_by_a_write(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    writes = RowWrites()

    live = store.live(writes=writes)

    assert live is not None
    assert sorted(writes.rows) == sorted(s.id for s in live.sessions)
    assert sorted(writes.versions) == [1]


def test_a_moved_session_gets_a_new_name_and_the_others_keep_theirs(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    before = _writes(store)
    moved = dataclasses.replace(talks[1], start=talks[1].start.replace(hour=17), end=talks[1].end.replace(hour=17))
    store.ingest(schedule(talks[0], moved, *talks[2:]), now=SECOND)

    after = _writes(store)

    changed = sorted(sid for sid in after if after[sid] != before.get(sid))
    live = store.live()
    assert live is not None
    assert changed == [s.id for s in live.sessions if s.start.hour == 17]


def test_a_cancelled_then_restored_session_is_named_anew_each_time(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    first = _writes(store)
    store.ingest(schedule(*talks[:5]), now=SECOND)
    cancelled = _writes(store)
    store.ingest(schedule(*talks), now=THIRD)

    restored = _writes(store)

    live = store.live()
    assert live is not None
    renamed = [sid for sid in sorted(first) if not first[sid] == cancelled[sid] == restored[sid]]
    assert renamed == [s.id for s in live.sessions if s.title == talks[5].title]
    assert len({first[renamed[0]], cancelled[renamed[0]], restored[renamed[0]]}) == 3


def test_a_store_made_anew_names_its_rows_apart_from_the_old_one(tmp_path: Path, store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    old = _writes(store)
    with Store.open(str(tmp_path / "other.sqlite")) as other:
        other.ingest(schedule(*six_talks()), now=SECOND)

        new = _writes(other)

    assert sorted(new) == sorted(old)
    assert [sid for sid in new if new[sid] == old[sid]] == []
