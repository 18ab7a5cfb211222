"""The sources table (server.store.sources) on SQLite and PostgreSQL (conftest's `store`): a source
is added due at once, claimed by one refresh at a time, finished once per generation, and found
overdue when its job was lost."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from feeds.outbound import Validators
from server.store import Store
from server.store.sources import Finished, Outcome, SourceSpec, SourceStore
from tests.helpers.store_builders import FIRST

EVERY = timedelta(minutes=15)
LEASE = timedelta(minutes=5)
SPEC = SourceSpec(
    urls=("https://sched.example.org/a", "https://sched.example.org/b"), interval=EVERY, tz="Europe/Paris"
)


def test_added_source_reads_back_whole_and_due_at_once(store: Store) -> None:
    table = SourceStore(store.engine)

    added = table.add(SPEC, FIRST)

    assert table.all() == (added,)
    assert (added.spec, added.next_run, added.generation) == (SPEC, FIRST, 0)
    assert added.validators == (Validators(None, None), Validators(None, None))
    assert (added.last_fetch, added.result, added.digest) == (None, None, None)


def test_a_claimed_source_cannot_be_claimed_again_until_its_lease_ends(store: Store) -> None:
    table = SourceStore(store.engine)
    source = table.add(SPEC, FIRST)

    first = table.claim(source.id, 0, FIRST, LEASE)
    during = table.claim(source.id, 0, FIRST + LEASE - timedelta(seconds=1), LEASE)
    after = table.claim(source.id, 0, FIRST + LEASE + timedelta(seconds=1), LEASE)

    assert (first is not None, during, after is not None) == (True, None, True)


def test_finish_records_the_refresh_once_per_generation(store: Store) -> None:
    table = SourceStore(store.engine)
    claimed = table.claim(table.add(SPEC, FIRST).id, 0, FIRST, LEASE)
    assert claimed is not None
    done = Finished(Outcome.OK, "version 1", (Validators('"e"', None), Validators(None, "Mon, 02 Mar 2026")), "ab" * 32)
    later = FIRST + timedelta(seconds=30)

    finished = table.finish(claimed, done, later)
    again = table.finish(claimed, done, later)  # a duplicate job for the same run

    assert finished is not None
    assert (finished.result, finished.message, finished.digest) == (Outcome.OK, "version 1", "ab" * 32)
    assert (finished.last_fetch, finished.next_run, finished.generation) == (later, later + EVERY, 1)
    assert finished.validators == done.validators
    assert again is None
    assert table.claim(claimed.id, 0, later, LEASE) is None  # the run is over


def test_overdue_lists_sources_due_and_not_leased(store: Store) -> None:
    table = SourceStore(store.engine)
    due, leased, later = (table.add(SPEC, at) for at in (FIRST, FIRST, FIRST + EVERY))
    table.claim(leased.id, 0, FIRST, LEASE)

    overdue = table.overdue(FIRST + timedelta(minutes=1))

    assert [s.id for s in overdue] == [due.id]
    assert later.next_run.tzinfo is UTC


def test_removed_source_is_gone(store: Store) -> None:
    table = SourceStore(store.engine)
    source = table.add(SPEC, datetime(2026, 3, 1, tzinfo=UTC))

    removed, again = table.remove(source.id), table.remove(source.id)

    assert (removed, again, table.get(source.id), table.all()) == (True, False, None, ())
