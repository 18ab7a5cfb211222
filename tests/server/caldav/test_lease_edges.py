"""The calendar lease's edges (server/caldav/lock.py) and the sync state's keys
(server/caldav/state.py), on SQLite and PostgreSQL: a stalled holder that wakes up after a
takeover must not free its successor's lease, renewals come at most every third of the lease,
and forgetting an event in one calendar leaves the same UID's row in another."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select

from server.caldav.errors import LeaseLost
from server.caldav.lock import CalendarLease, hold_calendar
from server.caldav.state import StateRow, SyncState, sync_state
from server.store.tables import calendar_locks
from tests.helpers.lease_clock import CALENDAR, T0, Clock

TTL = timedelta(seconds=60)


def lease_row(db: Engine) -> tuple[str | None, datetime | None]:
    with db.connect() as conn:
        owner, until = conn.execute(
            select(calendar_locks.c.owner, calendar_locks.c.until).where(calendar_locks.c.calendar_url == CALENDAR)
        ).one()
    return owner, until


def test_a_stalled_holder_releasing_after_a_takeover_leaves_the_successors_lease(db: Engine) -> None:
    clock = Clock()
    stalled = CalendarLease(db, CALENDAR, ttl=TTL, clock=clock)
    successor = CalendarLease(db, CALENDAR, ttl=TTL, clock=clock)
    third = CalendarLease(db, CALENDAR, ttl=TTL, clock=clock)
    stalled.try_take()
    clock.now = T0 + timedelta(seconds=61)
    successor.try_take()

    stalled.release()

    assert third.try_take() is False
    assert lease_row(db) == (successor.owner, T0 + timedelta(seconds=121))


def test_taking_one_calendar_leaves_other_free_calendars_free(db: Engine) -> None:
    other = CalendarLease(db, CALENDAR)
    other.try_take()
    other.release()

    took = CalendarLease(db, CALENDAR + "second/").try_take()

    assert (took, lease_row(db)) == (True, (None, None))


def test_a_lease_is_held_up_to_its_expiry_and_taken_after_it(db: Engine) -> None:
    clock = Clock()
    holder = CalendarLease(db, CALENDAR, ttl=TTL, clock=clock)
    other = CalendarLease(db, CALENDAR, ttl=TTL, clock=clock)
    holder.try_take()

    clock.now = T0 + TTL
    at_expiry = other.try_take()
    clock.now = T0 + TTL + timedelta(microseconds=1)
    after = other.try_take()

    assert (at_expiry, after) == (False, True)


def test_the_holder_takes_its_own_lease_again_and_extends_it(db: Engine) -> None:
    clock = Clock()
    holder = CalendarLease(db, CALENDAR, ttl=TTL, clock=clock)
    holder.try_take()

    clock.now = T0 + timedelta(seconds=30)
    again = holder.try_take()

    assert again is True
    assert lease_row(db) == (holder.owner, T0 + timedelta(seconds=90))


def test_renewals_come_once_a_third_of_the_lease_has_passed(db: Engine) -> None:
    clock = Clock()
    holder = CalendarLease(db, CALENDAR, ttl=TTL, clock=clock)
    holder.try_take()
    untils = []

    for seconds in (19, 20, 39, 40):
        clock.now = T0 + timedelta(seconds=seconds)
        holder.renew()
        untils.append(lease_row(db)[1])

    # Not at 19 s (under a third), at 20 s, not at 39 s (19 s after that), at 40 s.
    assert untils == [T0 + TTL, T0 + timedelta(seconds=80), T0 + timedelta(seconds=80), T0 + timedelta(seconds=100)]


def test_a_released_lease_is_free_and_renewing_it_is_lease_lost(db: Engine) -> None:
    clock = Clock()
    holder = CalendarLease(db, CALENDAR, ttl=TTL, clock=clock)
    holder.try_take()

    holder.release()
    clock.now = T0 + timedelta(seconds=30)

    assert lease_row(db) == (None, None)
    with pytest.raises(LeaseLost) as raised:
        holder.renew()
    assert str(raised.value) == f"another sync took over {CALENDAR} while this one stalled; stopped here"


def test_hold_calendar_polls_until_the_other_sync_ends(db: Engine) -> None:
    waits: list[float] = []
    other = CalendarLease(db, CALENDAR)
    other.try_take()

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 2:
            other.release()

    with hold_calendar(db, CALENDAR, wait=60, sleep=sleep) as lease:
        held = lease_row(db)[0]

    assert waits == [0.2, 0.2]
    assert held == lease.owner
    assert lease_row(db) == (None, None)  # released when the block ended


def row(uid: str, revision: int = 0) -> StateRow:
    return StateRow(uid=uid, name=f"{uid}.ics", etag=f'"{uid}-{revision}"', revision=revision, digest="0" * 64)


def test_forgetting_an_event_in_one_calendar_keeps_the_same_uid_in_another(db: Engine) -> None:
    mine = SyncState(db, CALENDAR, scope="pytorch")
    other_calendar = SyncState(db, CALENDAR + "other/", scope="pytorch")
    mine.save(row("a"))
    mine.save(row("b"))
    other_calendar.save(row("a", revision=3))

    mine.forget("a")

    assert (mine.rows(), other_calendar.rows()) == ({"b": row("b")}, {"a": row("a", revision=3)})


def test_each_save_records_when_it_was_pushed(db: Engine) -> None:
    before = datetime.now(UTC)

    SyncState(db, CALENDAR, scope="pytorch").save(row("a"))

    with db.connect() as conn:
        pushed_at = conn.execute(select(sync_state.c.pushed_at)).scalar_one()
    assert before <= pushed_at <= datetime.now(UTC)


@pytest.mark.usefixtures("new_york_machine")
def test_a_lease_taken_on_the_default_clock_holds_for_a_process_reading_utc(db: Engine) -> None:
    # A lease's expiry is an instant every process must read alike: taken on a machine whose zone
    # is New York, it still holds for a holder whose clock reads UTC.
    holder = CalendarLease(db, CALENDAR, ttl=TTL)
    other = CalendarLease(db, CALENDAR, ttl=TTL, clock=lambda: datetime.now(UTC))

    taken = holder.try_take()
    refused = other.try_take()

    assert (taken, refused) == (True, False)
