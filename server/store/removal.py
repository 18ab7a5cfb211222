"""Removing a conference from the store: its versions and their recorded content, its sessions,
its pick sets, its sources and the CalDAV calendars attached to its pick sets, in one
transaction. What the CalDAV sync already wrote into those calendars stays there: the store
no longer holds the credentials to reach them.

A removed conference's pick sets are logged as changed (server.store.picks), so server processes
drop them from their caches as they would an expired set.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, Connection, Engine, Table, delete, func, or_, select
from sqlalchemy.exc import SQLAlchemyError

from server.errors import StoreError
from server.store.picks import _note_changes  # the pick sets' change log, written in this transaction
from server.store.rows import to_db_time
from server.store.tables import (
    caldav_targets,
    conferences,
    picks,
    sessions,
    sources,
    sync_state,
    version_content,
    versions,
)


class NoSuchConference(StoreError):
    """The store holds no conference of that slug."""


@dataclass(frozen=True)
class Held:
    """What the store holds of one conference (and removing it removes)."""

    slug: str
    name: str
    versions: int
    sessions: int
    pick_sets: int
    sources: int
    calendars: int

    def described(self) -> str:
        return (
            f"{_plural(self.versions, 'version')}, {_plural(self.sessions, 'session')}, "
            f"{_plural(self.pick_sets, 'pick set')}, {_plural(self.sources, 'source')}, "
            f"{_plural(self.calendars, 'attached CalDAV calendar')}"
        )


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def held(engine: Engine, slug: str) -> Held:
    """What removing `slug` would remove; NoSuchConference when the store does not hold it."""
    try:
        with engine.connect() as conn:
            return _held(conn, slug)
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read store: {_first_line(exc)}") from exc


def remove(engine: Engine, slug: str, now: datetime | None = None) -> Held:
    """Remove `slug` and everything that belongs to it, in one transaction; what was removed."""
    moment = to_db_time((now or datetime.now(UTC)).astimezone(UTC))
    try:
        with engine.begin() as conn:
            found = _held(conn, slug)
            tokens = list(conn.execute(select(picks.c.token).where(picks.c.conference == slug)).scalars())
            conn.execute(
                delete(caldav_targets).where(
                    or_(caldav_targets.c.conference == slug, caldav_targets.c.pick_token.in_(tokens))
                )
            )
            conn.execute(delete(sync_state).where(sync_state.c.scope == slug))
            conn.execute(delete(picks).where(picks.c.conference == slug))
            _note_changes(conn, tokens, moment)
            conn.execute(delete(sources).where(sources.c.conference == slug))
            conn.execute(delete(version_content).where(version_content.c.conference == slug))
            conn.execute(delete(sessions).where(sessions.c.conference == slug))
            conn.execute(delete(versions).where(versions.c.conference == slug))
            conn.execute(delete(conferences).where(conferences.c.slug == slug))
            return found
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot remove {slug}, store unchanged: {_first_line(exc)}") from exc


def _held(conn: Connection, slug: str) -> Held:
    name = conn.execute(select(conferences.c.name).where(conferences.c.slug == slug)).scalar_one_or_none()
    if name is None:
        raise NoSuchConference(f"the store holds no conference {slug!r} (`confcal conference list` lists them)")

    def count(table: Table, where: ColumnElement[bool]) -> int:
        return int(conn.execute(select(func.count()).select_from(table).where(where)).scalar_one())

    tokens = select(picks.c.token).where(picks.c.conference == slug)
    return Held(
        slug=slug,
        name=name,
        versions=count(versions, versions.c.conference == slug),
        sessions=count(sessions, sessions.c.conference == slug),
        pick_sets=count(picks, picks.c.conference == slug),
        sources=count(sources, sources.c.conference == slug),
        calendars=count(
            caldav_targets, or_(caldav_targets.c.conference == slug, caldav_targets.c.pick_token.in_(tokens))
        ),
    )


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc)
    return text.splitlines()[0] if text else type(exc).__name__
