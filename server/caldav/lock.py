"""At most one sync per calendar at a time, across threads, processes and machines sharing a store.

A lease row per calendar URL (`caldav_calendar_locks`, server.store.tables): a sync takes it with one conditional
UPDATE ("set owner = me, until = now + ttl where the row is free, expired or already mine"),
which SQLite and PostgreSQL both apply atomically, so exactly one of two racing processes sees
one changed row. The holder renews the lease as it goes and releases it at the end; a holder that
was killed simply lets it expire, and the next sync takes over and resumes (execute.py recovers
the write a crash may have left unrecorded).

Why a lease row rather than the databases' own locks: PostgreSQL advisory locks have no SQLite
twin, and SQLite's only cross-process lock is the database write lock, which would hold every
other writer (picks saves, ingests) for the length of a sync, network waits included. A lease
costs two short transactions per sync and survives a dead holder without an open connection.

A renewal that finds the lease taken by someone else (we stalled past its expiry) raises
LeaseLost, so a stalled sync stops instead of writing beside its successor.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, and_, or_, update

from server.caldav.errors import CalendarBusy, LeaseLost
from server.caldav.state import insert_or
from server.store import schema
from server.store.tables import calendar_locks

# Long enough for one action's retries (up to five waits, each capped at 30 s by RetryPolicy),
# short enough that a killed holder's calendar is taken over within minutes.
TTL = timedelta(seconds=180)
_POLL = 0.2  # seconds between tries while another sync holds the calendar


def _utc_now() -> datetime:
    return datetime.now(UTC)


class CalendarLease:
    """The lease on one calendar, held by this object. Use `hold_calendar`."""

    def __init__(
        self,
        engine: Engine,
        calendar_url: str,
        *,
        ttl: timedelta = TTL,
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        self.engine = engine
        self.calendar_url = calendar_url
        self.ttl = ttl
        self.clock = clock
        # Unique per holder, and readable in the table: which host and process holds it.
        # (Any length of the random part works: it only has to differ between holders.)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}:{uuid.uuid4().hex[:8]}"
        # Replaced by the first take; renew() is only called while the lease is held.
        self._renewed = datetime.min.replace(tzinfo=UTC)
        schema.ensure(engine)

    def try_take(self) -> bool:
        """Take the lease if it is free, expired or ours; True if we hold it now."""
        now = self.clock()
        with self.engine.begin() as conn:
            # The row exists from then on; whoever made it, the UPDATE below decides.
            # (update=False: insert_or tests it for truth, so None would do the same.)
            insert_or(conn, calendar_locks, {"calendar_url": self.calendar_url}, update=False)
            taken = conn.execute(
                update(calendar_locks)
                .where(
                    calendar_locks.c.calendar_url == self.calendar_url,
                    or_(
                        calendar_locks.c.owner.is_(None),
                        calendar_locks.c.until < now,
                        calendar_locks.c.owner == self.owner,
                    ),
                )
                .values(owner=self.owner, until=now + self.ttl)
            ).rowcount
        if taken == 1:
            self._renewed = now
        return taken == 1

    # renew() and release() also name the calendar, though the owner alone would do: an owner
    # string is unique to one CalendarLease, which holds one calendar.
    def renew(self) -> None:
        """Extend the lease when a third of it has passed; LeaseLost if someone else holds it."""
        now = self.clock()
        if now - self._renewed < self.ttl / 3:
            return
        with self.engine.begin() as conn:
            kept = conn.execute(
                update(calendar_locks)
                .where(calendar_locks.c.calendar_url == self.calendar_url, calendar_locks.c.owner == self.owner)
                .values(until=now + self.ttl)
            ).rowcount
        if kept != 1:
            raise LeaseLost(f"another sync took over {self.calendar_url} while this one stalled; stopped here")
        self._renewed = now

    def release(self) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(calendar_locks)
                .where(and_(calendar_locks.c.calendar_url == self.calendar_url, calendar_locks.c.owner == self.owner))
                .values(owner=None, until=None)
            )


@contextmanager
def hold_calendar(
    engine: Engine,
    calendar_url: str,
    *,
    wait: float,
    ttl: timedelta = TTL,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[CalendarLease]:
    """Hold the calendar's lease for the block, waiting up to `wait` seconds for another sync to
    finish; CalendarBusy if it does not. The block should call `renew()` as it makes progress."""
    lease = CalendarLease(engine, calendar_url, ttl=ttl)
    deadline = time.monotonic() + wait
    while not lease.try_take():
        if time.monotonic() >= deadline:
            raise CalendarBusy(f"another sync of {calendar_url} is running; try again later")
        sleep(_POLL)
    try:
        yield lease
    finally:
        lease.release()
