"""The changelog's newest versions read without the whole history (server.store.changelog_since):
the same entries as the whole changelog's, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import delete

from feeds.model import Session, Status
from server.store import Store
from server.store.changelog_since import Before, Stamps, look_up, row_runs, rows_in
from server.store.history import encode
from server.store.rows import session_row
from server.store.tables import version_content
from tests.helpers.store_builders import FIRST, SECOND, THIRD, at, schedule, six_talks, talk

SLUG = "pytorch-conference-europe-2026"


def talks_with_ids() -> list[Session]:
    return [dataclasses.replace(s, id=f"{n:010x}") for n, s in enumerate(six_talks())]


def many_talks(count: int) -> list[Session]:
    return [dataclasses.replace(talk(f"Talk {n}", 10, "Ada Lovelace"), id=f"{n:010x}") for n in range(count)]


def rows(*sessions: Session) -> bytes:
    return encode([session_row(SLUG, s, 1) for s in sessions])


def many_versions(store: Store, after: Callable[[int], None] = lambda version: None) -> None:
    """Versions 1-6: published; talk 1 moved and talk 2 retitled; only a description edited;
    talk 3 cancelled and a new talk added; talk 3 restored; rolled back to version 2. `after`
    is called with each version's number once it is made."""
    talks = list(six_talks())
    store.ingest(schedule(*talks), now=FIRST)
    after(1)
    talks[0] = dataclasses.replace(talks[0], start=at(17), end=at(17, 25))
    talks[1] = dataclasses.replace(talks[1], title="Compilers for Everybody")
    store.ingest(schedule(*talks), now=SECOND)
    after(2)
    talks[4] = dataclasses.replace(talks[4], description="Edited.")
    store.ingest(schedule(*talks), now=SECOND)
    after(3)
    store.ingest(schedule(*talks[:2], *talks[3:], talk("Keynote", 9, "Guido van Rossum")), now=THIRD)
    after(4)
    store.ingest(schedule(*talks, talk("Keynote", 9, "Guido van Rossum")), now=THIRD)
    after(5)
    store.rollback(2, now=THIRD)
    after(6)


def test_entries_after_any_version_are_the_whole_changelogs(store: Store) -> None:
    many_versions(store)
    whole = store.changelog(SLUG)

    tails = [store.changelog_since(SLUG, e.version, e.sessions) for e in whole]

    assert [len(e.changes) for e in whole] == [0, 2, 0, 2, 1, 1]
    assert [e.sessions for e in whole] == [6, 6, 6, 6, 7, 6]
    assert tails == [whole[n + 1 :] for n in range(len(whole))]


def test_entries_after_any_version_given_the_sessions_as_of_it_or_before_are_the_whole_changelogs(
    store: Store,
) -> None:
    """A build's kept schedule (`Before`) stands in for the rows of the versions up to its own."""
    states: dict[int, tuple[Session, ...]] = {}
    many_versions(store, lambda version: states.__setitem__(version, live_sessions(store)))
    whole = store.changelog(SLUG)

    tails = {
        (since, kept): store.changelog_since(SLUG, since, whole[since - 1].sessions, Before(kept, states[kept]))
        for since in range(1, len(whole) + 1)
        for kept in range(1, since + 1)
    }

    assert tails == {(since, kept): whole[since:] for since, kept in tails}


def test_sessions_as_of_a_later_version_than_asked_for_are_not_used(store: Store) -> None:
    states: dict[int, tuple[Session, ...]] = {}
    many_versions(store, lambda version: states.__setitem__(version, live_sessions(store)))
    whole = store.changelog(SLUG)

    tail = store.changelog_since(SLUG, 1, whole[0].sessions, Before(2, states[2]))

    assert tail == whole[1:]


def live_sessions(store: Store) -> tuple[Session, ...]:
    live = store.live(SLUG)
    assert live is not None
    return live.sessions


def test_a_store_without_content_up_to_the_version_needs_the_whole_changelog(store: Store) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    store.ingest(schedule(*talks[1:]), now=SECOND)
    with store.engine.begin() as conn:  # as a store made before the content table existed
        conn.execute(delete(version_content))
    store.ingest(schedule(*talks), now=THIRD)  # records the baseline (version 2), then version 3
    whole = store.changelog(SLUG)

    assert store.changelog_since(SLUG, 1, whole[0].sessions) is None
    assert store.changelog_since(SLUG, 2, whole[1].sessions) == whole[2:]


def test_stamps_are_every_version_oldest_first_and_the_first_recorded(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    store.ingest(schedule(*six_talks()[1:]), now=SECOND)
    with store.engine.begin() as conn:  # as a store made before the content table existed
        conn.execute(delete(version_content))
    before_upgrade = store.changelog_stamps(SLUG)
    store.ingest(schedule(*six_talks()), now=THIRD)

    assert before_upgrade == Stamps(((1, FIRST), (2, SECOND)), None)
    assert store.changelog_stamps(SLUG) == Stamps(((1, FIRST), (2, SECOND), (3, THIRD)), 2)
    assert store.changelog_stamps("no-such-conference") == Stamps((), None)


def test_rows_are_looked_up_in_the_text_encode_writes() -> None:
    talks = talks_with_ids()
    talks[2] = dataclasses.replace(talks[2], status=Status.CANCELLED)
    data = rows(*talks)
    text = zlib.decompress(data)

    found = look_up(text, [talks[0].id, talks[2].id, talks[5].id, "ffffffffff"])

    assert found == {talks[0].id: talks[0], talks[2].id: talks[2], talks[5].id: talks[5]}
    assert look_up(b"[]", [talks[0].id]) == {}


def test_text_that_looks_like_a_row_inside_a_string_is_not_taken_for_one() -> None:
    talks = talks_with_ids()
    decoy = f'x"}},{{"description":"y","ends_at":null,"id":"{talks[1].id}"}}'
    talks[0] = dataclasses.replace(talks[0], description=decoy, title='{"description":')
    data = rows(*talks)

    found = rows_in(data, [talks[0].id, talks[1].id])

    assert found == {talks[0].id: talks[0], talks[1].id: talks[1]}


def spaced(found: list[dict[str, Any]]) -> bytes:
    return json.dumps(found).encode()


def keys_reversed(found: list[dict[str, Any]]) -> bytes:
    return json.dumps([dict(reversed(row.items())) for row in found], separators=(",", ":")).encode()


@pytest.mark.parametrize("layout", [spaced, keys_reversed])
def test_text_laid_out_otherwise_is_parsed_whole(layout: Any) -> None:
    talks = talks_with_ids()
    text = layout(json.loads(zlib.decompress(rows(*talks))))

    assert look_up(text, [talks[3].id]) is None
    assert rows_in(zlib.compress(text), [talks[3].id]) == {talks[3].id: talks[3]}


def test_many_ids_are_found_by_one_parse() -> None:
    talks = many_talks(40)

    found = rows_in(rows(*talks), [s.id for s in talks] + ["ffffffffff"])

    assert found == {s.id: s for s in talks}


def test_a_session_written_twice_is_its_last_row_as_in_a_whole_parse() -> None:
    talks = talks_with_ids()
    again = dataclasses.replace(talks[1], title="Compilers for Everybody")

    found = rows_in(rows(*talks, again), [again.id])

    assert found == {again.id: again}


@pytest.mark.parametrize("window", [1, 100, 700, 2**20])
def test_the_text_comes_in_runs_of_whole_rows_that_add_up_to_it(window: int) -> None:
    data = rows(*many_talks(12))

    runs = list(row_runs(data, window))

    assert [row for run in runs for row in json.loads(run)] == json.loads(zlib.decompress(data))
    assert all(look_up(run, []) == {} for run in runs)
    assert (len(runs) == 1) == (window == 2**20)


def test_rows_are_found_in_any_run_and_the_last_row_of_a_session_wins() -> None:
    talks = many_talks(12)
    again = dataclasses.replace(talks[1], title="Compilers for Everybody")
    data = rows(*talks, again)

    found = rows_in(data, [talks[1].id, talks[6].id, talks[11].id, "ffffffffff"], window=300)

    assert found == {talks[1].id: again, talks[6].id: talks[6], talks[11].id: talks[11]}


def test_text_cut_short_is_an_error_as_when_parsed_whole() -> None:
    data = rows(*many_talks(12))

    with pytest.raises(zlib.error):
        rows_in(data[: len(data) // 2], [many_talks(1)[0].id], window=300)


def test_the_whole_changelog_given_the_sessions_as_of_any_version_is_the_whole_changelog(store: Store) -> None:
    """A build's schedule (`Before`) stands in for the first version's rows of every session no
    later version wrote."""
    states: dict[int, tuple[Session, ...]] = {}
    many_versions(store, lambda version: states.__setitem__(version, live_sessions(store)))
    whole = store.changelog(SLUG)

    given = {version: store.changelog(SLUG, Before(version, sessions)) for version, sessions in states.items()}

    assert given == {version: whole for version in states}


def test_a_conference_of_one_version_given_its_sessions_does_not_read_the_rows_it_wrote(store: Store) -> None:
    store.ingest(schedule(*six_talks()), now=FIRST)
    sessions = live_sessions(store)
    whole = store.changelog(SLUG)
    with store.engine.begin() as conn:  # rows that would fail to parse, were they read
        conn.execute(version_content.update().values(sessions=zlib.compress(b"not rows")))

    given = store.changelog(SLUG, Before(1, sessions))

    assert given == whole
    assert [e.sessions for e in given] == [6]


def test_the_whole_changelog_of_a_store_without_content_from_the_first_version_ignores_what_is_given(
    store: Store,
) -> None:
    talks = six_talks()
    store.ingest(schedule(*talks), now=FIRST)
    store.ingest(schedule(*talks[1:]), now=SECOND)
    with store.engine.begin() as conn:  # as a store made before the content table existed
        conn.execute(delete(version_content))
    store.ingest(schedule(*talks), now=THIRD)
    whole = store.changelog(SLUG)

    given = store.changelog(SLUG, Before(3, live_sessions(store)))

    assert given == whole
    assert [len(e.changes) for e in whole] == [0, 1, 1]
