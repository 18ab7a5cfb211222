"""Which attached calendars (the `caldav_targets` table) need a sync, and saying that they do.

A sync is wanted while `wanted_generation` > `synced_generation`. Every reason for one bumps
`wanted_generation` in the database first, so the want survives any crash: a schedule version
bumps it in the ingest's own transaction for the calendars whose picks it changed
(`want_for_conference`, called by Store.ingest), a
picks change right after the set is saved (`CaldavTargets.want_sync`). Queueing a job is only the
fast path; the jobs' sweep finds what was wanted and never queued (server.jobs.tasks).

`next_attempt_at` (else `updated`) doubles as "due since" for a target not in backoff: a version
sets it when it is empty, so the sweep can tell a want that has waited too long from one whose
job is on its way.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, Engine, func, literal, select, update
from sqlalchemy.exc import SQLAlchemyError

from server.errors import StoreError
from server.store.rows import to_db_time
from server.store.tables import caldav_targets as targets
from server.store.tables import picks

ACTIVE = "active"


@dataclass(frozen=True)
class Wanted:
    """A target to sync, up to at least `generation`."""

    target: int
    generation: int


def _bump(now: datetime) -> dict[str, object]:
    return {
        "wanted_generation": targets.c.wanted_generation + 1,
        # Typed as the column, so the instant is stored as every other one (server.store.tables).
        "next_attempt_at": func.coalesce(
            targets.c.next_attempt_at, literal(to_db_time(now), targets.c.next_attempt_at.type)
        ),
    }


def want_for_conference(conn: Connection, conference: str, sessions: Collection[str], now: datetime) -> int:
    """Inside the transaction that commits a new schedule version of `conference`, whose
    changed, cancelled and restored sessions are `sessions`: every calendar attached to it whose
    picks hold one of them wants a sync (targets that need new credentials too, so that a sync
    runs once the credentials come). The others hold nothing that changed; syncing them would
    only ask every attendee's calendar server for a listing. Returns how many want one."""
    touched = set(sessions)
    query = (
        select(targets.c.id, picks.c.sessions)
        .join(picks, picks.c.token == targets.c.pick_token)
        .where(targets.c.conference == conference)
    )
    ids = [row.id for row in conn.execute(query) if touched.intersection(row.sessions)]
    if ids:
        conn.execute(update(targets).where(targets.c.id.in_(ids)).values(**_bump(now)))
    return len(ids)


def wanted(
    engine: Engine, *, conference: str | None = None, overdue: tuple[datetime, datetime] | None = None
) -> tuple[Wanted, ...]:
    """Active targets that want a sync; only `conference`'s when given. With `overdue` =
    (now, due_before): only those whose job was lost: held by a lease that ran out before
    `now`, or by none and due before `due_before` (waiting since then, or out of backoff)."""
    query = select(targets.c.id, targets.c.wanted_generation).where(
        (targets.c.state == ACTIVE) & (targets.c.wanted_generation > targets.c.synced_generation)
    )
    if conference is not None:
        query = query.where(targets.c.conference == conference)
    if overdue is not None:
        now, due_before = (to_db_time(moment) for moment in overdue)
        since = func.coalesce(targets.c.next_attempt_at, targets.c.updated)
        # A lease that ran out was never released: its sync died with its worker. With no
        # lease, a want that waited past `due_before` has lost its job (or never had one).
        died = targets.c.lease_until.is_not(None) & (targets.c.lease_until < now)
        waited = targets.c.lease_until.is_(None) & (since <= due_before)
        query = query.where(died | waited)
    try:
        with engine.connect() as conn:
            found = conn.execute(query.order_by(targets.c.id)).all()
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read the CalDAV targets: {_first_line(exc)}") from exc
    return tuple(Wanted(int(row.id), int(row.wanted_generation)) for row in found)


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc)
    return text.splitlines()[0] if text else type(exc).__name__
