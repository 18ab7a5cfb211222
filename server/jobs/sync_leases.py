"""Who may sync a calendar now: one lease per target across processes, and a per-host limit.

`claim` is one conditional UPDATE, as server.store.sources.SourceStore.claim: the target must be
active, want a sync at least up to the job's generation, be out of backoff, held by no live
lease, and its host (scheme://host:port of the calendar URL) must hold fewer than `per_host`
live leases. The count is a subquery of the same UPDATE, so it is exact across processes: on
SQLite the UPDATE runs under the database's one write lock; on PostgreSQL the claim first takes a
transaction-scoped advisory lock on the host, so two claims for one host take turns.

Every later write (`renew`, `finish`) names the claim's `owner` token, so a sync that outlived
its lease and was taken over cannot overwrite the newer one's record.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine, and_, case, func, literal, or_, select, text, update
from sqlalchemy.exc import SQLAlchemyError

from server.errors import StoreError
from server.store.rows import to_db_time
from server.store.tables import caldav_targets as targets

ACTIVE = "active"
NEEDS_CREDENTIALS = "needs_credentials"


@dataclass(frozen=True)
class Claimed:
    """A target held for one sync up to `generation` (its wanted generation when claimed)."""

    id: int
    conference: str
    pick_token: str
    url: str
    username: str
    password: str  # as stored: encrypted (server.crypto), never the password itself
    generation: int
    attempts: int  # failed syncs in a row before this one
    owner: str


class Refused(StrEnum):
    NOTHING = "nothing"  # no sync wanted up to that generation, held by another, in backoff, gone
    HOST_BUSY = "host_busy"  # wanted, but its host already has `per_host` syncs running


def host_of(url: str) -> str:
    """scheme://host:port/ of a calendar URL: what the per-host limit counts by."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}/"


def _like_prefix(url: str) -> tuple[str, ...]:
    """LIKE patterns of every URL spelling on the same host (with and without the default port)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    spellings = {host, host.lower()}
    if parts.port is None:
        default = 443 if parts.scheme == "https" else 80
        spellings |= {f"{h}:{default}" for h in tuple(spellings)}
    escaped = (s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for s in spellings)
    return tuple(sorted(f"{parts.scheme}://{s}/%" for s in escaped))


def claim(
    engine: Engine, target_id: int, generation: int, owner: str, now: datetime, lease: timedelta, per_host: int
) -> Claimed | Refused:
    moment = to_db_time(now)
    try:
        with engine.connect() as conn:
            url = conn.execute(select(targets.c.url).where(targets.c.id == target_id)).scalar_one_or_none()
        if url is None:
            return Refused.NOTHING
        other = targets.alias("other")
        same_host = or_(*(other.c.url.like(p, escape="\\") for p in _like_prefix(url)))
        running = select(func.count()).select_from(other).where(same_host & (other.c.lease_until >= moment))
        claimable = and_(
            targets.c.id == target_id,
            targets.c.state == ACTIVE,
            targets.c.synced_generation < generation,
            targets.c.wanted_generation > targets.c.synced_generation,
            targets.c.lease_until.is_(None) | (targets.c.lease_until < moment),
            # next_attempt_at is a backoff only after a failure; else it says since when a sync
            # is wanted, written by another process whose clock may run a little ahead.
            (targets.c.attempts == 0) | targets.c.next_attempt_at.is_(None) | (targets.c.next_attempt_at <= moment),
        )
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _lock_key(host_of(url))})
            taken = conn.execute(
                update(targets)
                .where(claimable & (running.scalar_subquery() < per_host))
                .values(lease_owner=owner, lease_until=to_db_time(now + lease))
            ).rowcount
            if taken != 1:
                wanted = conn.execute(select(targets.c.id).where(claimable)).first() is not None
                return Refused.HOST_BUSY if wanted else Refused.NOTHING
            row = conn.execute(select(targets).where(targets.c.id == target_id)).mappings().one()
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot claim a CalDAV target: {_first_line(exc)}") from exc
    return Claimed(
        id=int(row["id"]),
        conference=row["conference"],
        pick_token=row["pick_token"],
        url=row["url"],
        username=row["username"],
        password=row["password"],
        generation=int(row["wanted_generation"]),
        attempts=int(row["attempts"]),
        owner=owner,
    )


def renew(engine: Engine, claimed: Claimed, now: datetime, lease: timedelta) -> bool:
    """Extend the lease of a sync still running; False if it was lost (expired and taken)."""
    return _update(engine, claimed, {"lease_until": to_db_time(now + lease)})


def finish(engine: Engine, claimed: Claimed, values: dict[str, Any], now: datetime, *, done: bool) -> bool:
    """Record a sync and drop the lease. `done`: the generation is settled (synced, or given up
    on), so `synced_generation` moves to it; if more was wanted meanwhile, the target stays due."""
    record: dict[str, Any] = {"lease_owner": None, "lease_until": None, "last_sync": to_db_time(now), **values}
    if done:
        record["synced_generation"] = claimed.generation
        record["attempts"] = 0
        record["next_attempt_at"] = case(
            (
                targets.c.wanted_generation > claimed.generation,
                literal(to_db_time(now), targets.c.next_attempt_at.type),
            ),
            else_=None,
        )
    return _update(engine, claimed, record)


def _update(engine: Engine, claimed: Claimed, values: dict[str, Any]) -> bool:
    mine = (targets.c.id == claimed.id) & (targets.c.lease_owner == claimed.owner)
    try:
        with engine.begin() as conn:
            return conn.execute(update(targets).where(mine).values(**values)).rowcount == 1
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot record a CalDAV sync: {_first_line(exc)}") from exc


def wanted_generation(engine: Engine, target_id: int) -> int | None:
    """The target's wanted generation now if it is active and still wants a sync, else None."""
    query = select(targets.c.wanted_generation).where(
        (targets.c.id == target_id)
        & (targets.c.state == ACTIVE)
        & (targets.c.wanted_generation > targets.c.synced_generation)
    )
    try:
        with engine.connect() as conn:
            found = conn.execute(query).scalar_one_or_none()
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read a CalDAV target: {_first_line(exc)}") from exc
    return None if found is None else int(found)


def _lock_key(host: str) -> int:
    # pg_advisory_xact_lock takes a signed 64-bit key; a CRC of the host is stable across processes.
    return zlib.crc32(host.encode()) - 2**31


def _first_line(exc: BaseException) -> str:
    text_ = str(getattr(exc, "orig", None) or exc)
    return text_.splitlines()[0] if text_ else type(exc).__name__
