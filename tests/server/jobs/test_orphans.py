"""The periodic job that forgets the calendars of expired pick sets, on the real Huey queue in a
real store (SQLite and PostgreSQL): due every ten minutes, and it drops only the calendars whose
pick set is gone (URL and sealed password with them)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import delete

from server.crypto import Secret, new_key
from server.jobs import Jobs
from server.jobs.queue import open_queue
from server.store import Store
from server.store.picks import PickStore
from server.store.tables import picks
from tests.helpers.listed_targets import ListedTargets
from tests.helpers.sync_helpers import SCHEDULE, SLUG, stored_ids

NOW = datetime(2026, 4, 8, 12, 0, tzinfo=UTC)


@pytest.fixture
def jobs(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[Jobs]:
    monkeypatch.setenv("CONFCAL_SECRET_KEY", new_key())  # a PostgreSQL store has no key file beside it
    store.ingest(SCHEDULE)
    made = Jobs(store, open_queue(store.engine.url.render_as_string(hide_password=False)), clock=lambda: NOW)
    yield made
    made.queue.storage.close()


def _periodic(jobs: Jobs, minute: int) -> list[str]:
    # Huey keeps its times as naive UTC.
    return sorted(task.name for task in jobs.queue.read_periodic(datetime(2026, 4, 8, 12, minute)))


def test_the_job_is_due_every_ten_minutes(jobs: Jobs) -> None:
    assert _periodic(jobs, 20) == ["drop_orphan_calendars", "sweep_caldav", "sweep_invitations", "sweep_sources"]
    assert _periodic(jobs, 21) == ["sweep_caldav", "sweep_invitations", "sweep_sources"]


def test_it_forgets_only_the_calendars_of_pick_sets_that_are_gone(store: Store, jobs: Jobs) -> None:
    sets = PickStore(store.engine)
    kept, expired = (sets.create(SLUG, stored_ids(store, ["s0"])) for _ in range(2))
    calendars = ListedTargets(store.engine)
    ids = [
        calendars.attach(SLUG, pickset.token, f"https://cal.example.org/{n}/", "alice", Secret("pw"), NOW).id
        for n, pickset in enumerate((kept, expired))
    ]
    with store.engine.begin() as conn:  # what PickStore.purge does to an expired set
        conn.execute(delete(picks).where(picks.c.token == expired.token))
    (task,) = [t for t in jobs.queue.read_periodic(datetime(2026, 4, 8, 12, 30)) if t.name == "drop_orphan_calendars"]

    jobs.queue.execute(task)

    assert calendars.ids() == [ids[0]]
    assert calendars.by_token(expired.token) is None
    assert jobs.drop_orphans() == 0  # nothing left to forget
