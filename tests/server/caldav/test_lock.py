"""At most one sync per calendar at a time, across processes (server/caldav/lock.py), and the sync
state's save as one atomic upsert; on SQLite and PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from server.caldav.errors import CalendarBusy, LeaseLost
from server.caldav.lock import CalendarLease, hold_calendar
from server.caldav.state import StateRow, SyncState, sync_state
from server.store import Store
from tests.helpers.lease_clock import CALENDAR, T0, Clock
from tests.helpers.push_helpers import DavServer, make_schedule, uid_counts
from tests.helpers.push_runs import contents

WORKER = Path(__file__).resolve().parents[2] / "helpers" / "push_worker.py"


def test_a_held_calendar_cannot_be_taken_until_released(db: Engine) -> None:
    first, second = CalendarLease(db, CALENDAR), CalendarLease(db, CALENDAR)
    other_calendar = CalendarLease(db, CALENDAR + "other/")

    took = [first.try_take(), second.try_take(), other_calendar.try_take()]
    first.release()

    assert took == [True, False, True]
    assert second.try_take() is True


def test_an_expired_lease_is_taken_over_and_the_stalled_holder_stops(db: Engine) -> None:
    clock = Clock()
    ttl = timedelta(seconds=60)
    stalled = CalendarLease(db, CALENDAR, ttl=ttl, clock=clock)
    successor = CalendarLease(db, CALENDAR, ttl=ttl, clock=clock)
    assert stalled.try_take()

    clock.now = T0 + timedelta(seconds=59)
    early = successor.try_take()
    clock.now = T0 + timedelta(seconds=61)
    late = successor.try_take()

    assert (early, late) == (False, True)
    with pytest.raises(LeaseLost):
        stalled.renew()


def test_renewing_keeps_the_lease_past_its_first_expiry(db: Engine) -> None:
    clock = Clock()
    ttl = timedelta(seconds=60)
    holder = CalendarLease(db, CALENDAR, ttl=ttl, clock=clock)
    other = CalendarLease(db, CALENDAR, ttl=ttl, clock=clock)
    holder.try_take()

    clock.now = T0 + timedelta(seconds=40)
    holder.renew()
    clock.now = T0 + timedelta(seconds=90)

    assert other.try_take() is False


def test_a_busy_calendar_is_calendar_busy_after_the_wait(db: Engine) -> None:
    waits: list[float] = []
    with hold_calendar(db, CALENDAR, wait=60):
        with pytest.raises(CalendarBusy), hold_calendar(db, CALENDAR, wait=0, sleep=waits.append):
            pass

    with hold_calendar(db, CALENDAR, wait=0):  # released when the block ended
        pass
    assert waits == []


def test_save_twice_is_one_row_with_the_latest_values(db: Engine) -> None:
    state = SyncState(db, CALENDAR, scope="conf")

    state.save(StateRow(uid="a@x", name="a.ics", etag='"1"', revision=0, digest="d0"))
    state.save(StateRow(uid="a@x", name="a.ics", etag='"2"', revision=1, digest="d1"))

    with db.connect() as conn:
        count = conn.execute(select(func.count()).select_from(sync_state)).scalar_one()
    assert count == 1
    assert state.rows() == {"a@x": StateRow(uid="a@x", name="a.ics", etag='"2"', revision=1, digest="d1")}


def test_two_processes_pushing_one_calendar_write_each_event_once(radicale: DavServer, tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    with Store.open(db) as store:
        store.ingest(make_schedule(20))
        schedule = store.live()
    assert schedule is not None
    ids = [s.id for s in schedule.sessions]
    calendar = radicale.new_calendar()
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(WORKER.parent), *sys.path]))
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), db, calendar, str(go), *ids],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline() == "ready\n"
    before = radicale.counts()

    go.touch()
    results = [worker.communicate(timeout=300) for worker in workers]

    puts = radicale.counts()["PUT"] - before["PUT"]
    assert [err.splitlines()[-1:] for _, err in results] == [[], []]  # no traceback's last line
    assert [w.returncode for w in workers] == [0, 0]
    assert sorted(out.strip() for out, _ in results) == [
        "created 0, updated 0, deleted 0, unchanged 20, conflicts 0",
        "created 20, updated 0, deleted 0, unchanged 0, conflicts 0",
    ]
    assert puts == 20
    assert sorted(set(uid_counts(contents(calendar)).values())) == [1]
    assert len(uid_counts(contents(calendar))) == 20
