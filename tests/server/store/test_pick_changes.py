"""The pick sets' change log (server.store.picks.PickStore.changes_since), on SQLite and
PostgreSQL: a created, a replaced and a purged set are each reported once, nothing else is,
and a reader the log no longer reaches back for is told to re-read everything."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from server.store import Store
from server.store.expiry import KEEP_AFTER_END
from server.store.picks import KEEP_CHANGES, PickChanges, PickStore
from server.web.demo import seed_demo

MARCH = datetime(2026, 3, 1, tzinfo=UTC)
# The demo conference ends at 2026-04-07 22:00 UTC; a set nobody read is purged this long after.
PURGE = datetime(2026, 4, 7, 22, tzinfo=UTC) + KEEP_AFTER_END


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def test_a_new_a_replaced_and_a_purged_set_are_reported_and_nothing_else(store: Store) -> None:
    seed_demo(store)
    (summary,) = store.conferences()
    clock = Clock(MARCH)
    here, other_process = PickStore(store.engine, clock=clock), PickStore(store.engine, clock=clock)
    changed, purged, unchanged = (here.create(summary.slug, ["a"]).token for _ in range(3))
    first = here.changes_since(None)
    clock.now = PURGE - timedelta(hours=1)
    other_process.replace(changed, ["b"])
    other_process.touch([unchanged], clock.now)  # read, not changed
    new = other_process.create(summary.slug, ["c"]).token
    gone = other_process.purge(PURGE)

    since = here.changes_since(first.mark)
    again = here.changes_since(since.mark)

    assert (first.tokens, gone) == (None, 1)
    assert since == PickChanges(first.mark + 3, frozenset({changed, new, purged}))
    assert again == PickChanges(since.mark, frozenset())


def test_a_reader_the_pruned_log_no_longer_reaches_is_told_everything_may_have_changed(store: Store) -> None:
    clock = Clock(MARCH)
    picks = PickStore(store.engine, clock=clock)
    old = picks.create("conf", ["a"]).token
    mark = picks.changes_since(None).mark
    picks.replace(old, ["b"])  # logged in March
    clock.now = MARCH + KEEP_CHANGES + timedelta(days=1)
    recent = picks.create("conf", ["c"]).token
    before_pruning = picks.changes_since(mark)

    picks.purge(clock.now)  # the conference is not in the store: no set goes, the old log does
    after_pruning = picks.changes_since(mark)
    latest = picks.changes_since(before_pruning.mark - 1)

    assert before_pruning.tokens == frozenset({old, recent})
    assert after_pruning == PickChanges(before_pruning.mark, None)
    assert latest.tokens == frozenset({recent})
    assert picks.get(old) is not None
