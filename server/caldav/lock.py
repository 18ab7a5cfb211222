"""At most one sync per calendar at a time, across threads, processes and machines sharing a store.

A lease row per calendar URL (`caldav_calendar_locks`, server.store.tables): a sync takes it with one conditional
UPDATE ("set owner = me, until = now + ttl where the row is free, expired or already mine"),
which SQLite and PostgreSQL both apply atomically, so exactly one of two racing processes sees
one changed row. The holder renews the lease from a heartbeat thread while it works and releases
it at the end, so the lease can be short. A holder that was killed is taken over as soon as it is
known dead: the owner string names the host, pid and the process's start time, and a waiter on the
same host that finds that pid gone (or reused by a process started at another time) takes the
lease at once. A holder on another host is taken over when its lease expires. Either way the next
sync resumes (execute.py recovers the write a crash may have left unrecorded).

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
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Connection, Engine, and_, or_, select, update

from server.caldav.errors import CalendarBusy, LeaseLost
from server.caldav.state import insert_or
from server.store import schema
from server.store.tables import calendar_locks

# A heartbeat renews the lease every third of it while the sync runs (network waits included), so
# it only has to outlast a stalled process's last beat: a holder on another host that died is
# taken over within this time, one on this host at once.
TTL = timedelta(seconds=30)
_POLL = 0.2  # seconds between tries while another sync holds the calendar


def _start_time(pid: int) -> str | None:
    """When process `pid` started, in clock ticks since boot (field 22 of /proc/PID/stat); None
    where there is no such process or no /proc. With the pid it names one process for good: a
    pid the kernel hands out again belongs to a process with another start time."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # Field 2, the command name, is in parentheses and may hold spaces: count after its last ")".
    fields = stat.rpartition(")")[2].split()
    # A zombie (state Z, killed and not yet reaped by its parent) does no more work: gone too.
    if len(fields) <= 19 or fields[0] == "Z":
        return None
    return fields[19]


_HOST = socket.gethostname()


@dataclass(frozen=True)
class Holder:
    """Who holds a calendar, read from the lease row: for the line a waiting sync prints."""

    owner: str
    until: datetime | None

    @property
    def host(self) -> str:
        return self.owner.split(":")[0]

    @property
    def pid(self) -> int | None:
        parts = self.owner.split(":")
        return int(parts[1]) if len(parts) == 5 and parts[1].isdigit() else None

    def dead(self) -> bool:
        """True only when the holder is known to be gone: on this host, and its pid is free or
        started at another time than the one recorded. Any other holder may still be working."""
        parts = self.owner.split(":")
        if len(parts) != 5 or parts[0] != _HOST or self.pid is None or parts[2] == "-":
            return False
        return _start_time(self.pid) != parts[2]

    def describe(self) -> str:
        who = f"process {self.pid} on {self.host}" if self.pid is not None else self.owner
        if self.until is None:
            return who
        return f"{who} until {self.until.astimezone(UTC):%H:%M:%S} UTC"


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
        # Unique per holder, and readable in the table: which host and process holds it, and when
        # that process started, so that a waiter on the same host can tell it died (Holder.dead).
        # (Any length of the random part works: it only has to differ between holders.)
        pid = os.getpid()
        started = _start_time(pid) or "-"
        self.owner = f"{_HOST}:{pid}:{started}:{threading.get_ident()}:{uuid.uuid4().hex[:8]}"
        # Replaced by the first take; renew() is only called while the lease is held.
        self._renewed = datetime.min.replace(tzinfo=UTC)
        # Set by the heartbeat when it found the lease taken; the next renew() raises LeaseLost.
        self.lost = False
        # The other holder seen by the last try_take that failed.
        self.holder: Holder | None = None
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
            if taken != 1:
                taken = self._take_from_the_dead(conn, now)
        if taken == 1:
            self._renewed = now
            self.holder = None
        return taken == 1

    def _take_from_the_dead(self, conn: Connection, now: datetime) -> int:
        """Take the lease from a holder known to be dead; the owner in the WHERE makes two waiters
        that both saw the same dead holder take it once."""
        row = conn.execute(
            select(calendar_locks.c.owner, calendar_locks.c.until).where(
                calendar_locks.c.calendar_url == self.calendar_url
            )
        ).one_or_none()
        if row is None or row.owner is None:
            return 0
        self.holder = Holder(row.owner, row.until)
        if not self.holder.dead():
            return 0
        return conn.execute(
            update(calendar_locks)
            .where(calendar_locks.c.calendar_url == self.calendar_url, calendar_locks.c.owner == row.owner)
            .values(owner=self.owner, until=now + self.ttl)
        ).rowcount

    # renew() and release() also name the calendar, though the owner alone would do: an owner
    # string is unique to one CalendarLease, which holds one calendar.
    def renew(self) -> None:
        """Extend the lease when a third of it has passed; LeaseLost if someone else holds it."""
        if self.lost:
            raise LeaseLost(f"another sync took over {self.calendar_url} while this one stalled; stopped here")
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
            self.lost = True
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
    waiting: Callable[[str], None] | None = None,
) -> Iterator[CalendarLease]:
    """Hold the calendar's lease for the block, waiting up to `wait` seconds for another sync to
    finish; CalendarBusy if it does not. A heartbeat thread renews the lease while the block runs;
    the block should still call `renew()` as it makes progress, which raises LeaseLost once the
    lease was taken over. `waiting` is told once, in one line, who holds the calendar and until
    when, when the lease is not free at the first try."""
    lease = CalendarLease(engine, calendar_url, ttl=ttl)
    deadline = time.monotonic() + wait
    told = False
    while not lease.try_take():
        holder = lease.holder.describe() if lease.holder is not None else "another sync"
        if time.monotonic() >= deadline:
            raise CalendarBusy(f"another sync of {calendar_url} is running ({holder}); try again later")
        if waiting is not None and not told:
            waiting(f"{calendar_url} is held by {holder}; waiting up to {wait:g} s")
            told = True
        sleep(_POLL)
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(lease, stop), name="calendar-lease", daemon=True)
    beat.start()
    try:
        yield lease
    finally:
        stop.set()
        beat.join()
        lease.release()


def _heartbeat(lease: CalendarLease, stop: threading.Event) -> None:
    """Renew the lease every third of it until `stop`, so a sync waiting on the network (retries,
    a slow server) keeps its calendar; ends when the lease was lost."""
    while not stop.wait(lease.ttl.total_seconds() / 3):
        try:
            lease.renew()
        except LeaseLost:
            return
        except Exception:  # noqa: BLE001 - a store hiccup: the next beat tries again
            continue
