"""Calendars the server keeps in sync with a pick set: the `caldav_targets` table.

A target is attached to one pick set (named by its token) and holds the calendar's URL, the user
name and the password, encrypted (server.crypto: the store only ever sees `Password`s and Fernet
tokens). Nothing here knows HTTP or CalDAV: the API (server.web.caldav_api) checks a calendar
before attaching it, the sync jobs (server.jobs) run the push service.

Sync bookkeeping: every reason for a sync bumps `wanted_generation` (`attach`, `want_sync` for a
pick set's change; server.store.caldav_wanted for a new schedule version); a sync is due while it
is above `synced_generation`. The lease that lets one sync run at a time, and the record of its
result, are server.jobs.sync_leases'; `begin_detach` takes the same lease to remove a calendar.

Every write is one short transaction; a locked or unreachable database raises `StoreBusy`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, insert, or_, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError

from server.crypto import Cipher, Password, key_for
from server.errors import StoreError
from server.store import schema
from server.store.busy import read_rows, writing
from server.store.rows import from_db_time, to_db_time
from server.store.sync_counts import COUNT_NAMES, SyncCounts
from server.store.tables import caldav_targets as targets
from server.store.tables import picks


class TargetState(StrEnum):
    ACTIVE = "active"  # synced whenever a sync is wanted
    NEEDS_CREDENTIALS = "needs_credentials"  # the server refused them; waits for a new attach
    DETACHING = "detaching"  # its events being removed before the row goes; never synced again


class CalendarTaken(StoreError):
    """Another pick set of the conference already syncs into this calendar (they would delete
    each other's events)."""


@dataclass(frozen=True)
class Target:
    """A target as stored, without its password (see `CaldavTargets.credentials`)."""

    id: int
    conference: str
    pick_token: str
    url: str
    username: str
    state: TargetState
    created: datetime
    updated: datetime
    last_sync: datetime | None
    last_result: str | None  # "ok" | "error"
    counts: SyncCounts | None
    last_error: str | None
    wanted_generation: int
    synced_generation: int
    attempts: int
    next_attempt_at: datetime | None
    lease_owner: str | None
    lease_until: datetime | None


@dataclass(frozen=True)
class Credentials:
    """What a sync logs in with. `password` is a Password, so printing this shows no password."""

    url: str
    username: str
    password: Password


class CaldavTargets:
    """The targets in `engine`'s database. `cipher` gives the key (default: server.crypto's
    lookup for this store); it is asked for only when a password is written or read."""

    def __init__(self, engine: Engine, cipher: Callable[[], Cipher] | None = None) -> None:
        self.engine = engine
        self._cipher_source = cipher or (lambda: key_for(engine))
        self._cipher: Cipher | None = None
        schema.ensure(engine)

    def cipher(self) -> Cipher:
        if self._cipher is None:
            self._cipher = self._cipher_source()
        return self._cipher

    # --- attaching and reading ------------------------------------------------------------------

    def attach(
        self,
        conference: str,
        token: str,
        url: str,
        username: str,
        password: Password,
        now: datetime,
    ) -> Target:
        """Attach (or re-attach, replacing URL and credentials) the pick set's calendar, active
        and due at once. Raises CalendarTaken if another set of the conference uses the calendar."""
        sealed = self.cipher().encrypt(password)
        stamp = to_db_time(now)
        values: dict[str, Any] = {
            "url": url,
            "username": username,
            "password": sealed,
            "state": TargetState.ACTIVE.value,
            "updated": stamp,
            "attempts": 0,
            "next_attempt_at": stamp,
            "last_error": None,
        }
        try:
            with self._writing() as conn:
                taken = conn.execute(
                    select(targets.c.id).where(
                        targets.c.conference == conference,
                        targets.c.url == url,
                        targets.c.pick_token != token,
                    )
                ).first()
                if taken is not None:
                    raise CalendarTaken("another pick set of this conference already syncs into this calendar")
                changed = conn.execute(
                    update(targets)
                    .where(targets.c.pick_token == token)
                    .values(wanted_generation=targets.c.wanted_generation + 1, **values)
                ).rowcount
                if not changed:
                    conn.execute(
                        insert(targets).values(
                            conference=conference,
                            pick_token=token,
                            created=stamp,
                            wanted_generation=1,
                            synced_generation=0,
                            **values,
                        )
                    )
        except IntegrityError:
            # A concurrent attach of the same set or calendar won the race.
            raise CalendarTaken("this calendar was attached at the same moment; try again") from None
        found = self.by_token(token)
        assert found is not None  # written just now, in this transaction's commit
        return found

    def by_token(self, token: str) -> Target | None:
        return self._one(targets.c.pick_token == token)

    def get(self, target_id: int) -> Target | None:
        return self._one(targets.c.id == target_id)

    def credentials(self, target_id: int) -> Credentials | None:
        """URL, user name and the decrypted password (SecretUndecryptable without the key)."""
        row = self._read(select(targets.c.url, targets.c.username, targets.c.password).where(targets.c.id == target_id))
        if not row:
            return None
        url, username, sealed = row[0]
        return Credentials(url, username, self.cipher().decrypt(sealed))

    # --- wanting syncs --------------------------------------------------------------------------

    def want_sync(self, token: str) -> list[int]:
        """The pick set changed: its target (if active) wants a sync. Returns the ids bumped."""
        return self._bump(targets.c.pick_token == token)

    # --- detaching ------------------------------------------------------------------------------

    def begin_detach(self, token: str, owner: str, now: datetime, ttl: timedelta) -> Target | None:
        """Mark the set's target detaching under `owner`'s lease, so no sync starts or finishes
        while its events are removed. None if there is no target or another lease is held."""
        stamp = to_db_time(now)
        with self._writing() as conn:
            taken = conn.execute(
                update(targets)
                .where(
                    targets.c.pick_token == token,
                    or_(
                        targets.c.lease_until.is_(None),
                        targets.c.lease_until < stamp,
                        targets.c.lease_owner == owner,
                    ),
                )
                .values(
                    state=TargetState.DETACHING.value,
                    lease_owner=owner,
                    lease_until=to_db_time(now + ttl),
                    updated=stamp,
                )
            ).rowcount
        return self.by_token(token) if taken else None

    def abort_detach(self, target_id: int, owner: str, state: TargetState) -> bool:
        """Removing the events failed: back to `state`, lease released."""
        return self._finish(target_id, owner, state=state.value)

    def detach(self, token: str) -> bool:
        """Delete the set's target, password and all. False if there was none."""
        with self._writing() as conn:
            gone = conn.execute(delete(targets).where(targets.c.pick_token == token)).rowcount
        return bool(gone)

    def drop_orphans(self) -> int:
        """Delete targets whose pick set no longer exists (expired: server.store.expiry)."""
        orphan = ~select(picks.c.token).where(picks.c.token == targets.c.pick_token).exists()
        with self._writing() as conn:
            return int(conn.execute(delete(targets).where(orphan)).rowcount)

    def rotate_keys(self) -> int:
        """Re-encrypt every stored password with the cipher's first key; how many rows."""
        cipher = self.cipher()
        with self._writing() as conn:
            rows = conn.execute(select(targets.c.id, targets.c.password)).all()
            for target_id, sealed in rows:
                conn.execute(update(targets).where(targets.c.id == target_id).values(password=cipher.rotate(sealed)))
        return len(rows)

    # --- internals ------------------------------------------------------------------------------

    def _bump(self, where: Any) -> list[int]:
        with self._writing() as conn:
            ids = [
                r.id
                for r in conn.execute(select(targets.c.id).where(where, targets.c.state == TargetState.ACTIVE.value))
            ]
            if ids:
                conn.execute(
                    update(targets)
                    .where(targets.c.id.in_(ids))
                    .values(wanted_generation=targets.c.wanted_generation + 1)
                )
        return ids

    def _finish(self, target_id: int, owner: str, **values: Any) -> bool:
        with self._writing() as conn:
            done = conn.execute(
                update(targets)
                .where(and_(targets.c.id == target_id, targets.c.lease_owner == owner))
                .values(lease_owner=None, lease_until=None, **values)
            ).rowcount
        return bool(done)

    def _one(self, where: Any) -> Target | None:
        rows = self._read(select(targets).where(where))
        return _target(rows[0]._mapping) if rows else None

    def _read(self, query: Any) -> list[Any]:
        return read_rows(self.engine, query, "calendar targets")

    def _writing(self) -> AbstractContextManager[Connection]:
        return writing(self.engine, "calendar targets")


def _time(value: datetime | None) -> datetime | None:
    return None if value is None else from_db_time(value)


def _target(row: RowMapping) -> Target:
    counts = row["counts"]
    return Target(
        id=row["id"],
        conference=row["conference"],
        pick_token=row["pick_token"],
        url=row["url"],
        username=row["username"],
        state=TargetState(row["state"]),
        created=from_db_time(row["created"]),
        updated=from_db_time(row["updated"]),
        last_sync=_time(row["last_sync"]),
        last_result=row["last_result"],
        counts=None if counts is None else SyncCounts(**{n: int(counts.get(n, 0)) for n in COUNT_NAMES}),
        last_error=row["last_error"],
        wanted_generation=row["wanted_generation"],
        synced_generation=row["synced_generation"],
        attempts=row["attempts"],
        next_attempt_at=_time(row["next_attempt_at"]),
        lease_owner=row["lease_owner"],
        lease_until=_time(row["lease_until"]),
    )
