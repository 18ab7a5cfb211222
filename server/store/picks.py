"""Personal picks: a set of session ids behind an unguessable token, kept in the store's database.

There are no accounts: whoever holds the token owns the set, so the token is the only secret and
carries at least 128 random bits (secrets.token_urlsafe). The table lives on its own MetaData, so
the schedule store's schema (server.store.tables) knows nothing about it; `create_all` checks
first, so opening an existing database is a no-op. The ids are one JSON column: a pick set is
always read and written whole, never queried by session. Request bodies are checked before they
get here (server.app.bodies): the store knows nothing of HTTP.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Engine,
    MetaData,
    String,
    Table,
    create_engine,
    insert,
    select,
    update,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool

from server.errors import StoreError
from server.store.rows import from_db_time, to_db_time

TOKEN_BYTES = 18  # 144 bits, above the 128 the issue asks for
_TOKEN = re.compile(r"[A-Za-z0-9_-]{22,64}")

metadata = MetaData()

picks = Table(
    "personal_picks",
    metadata,
    Column("token", String(64), primary_key=True),
    Column("conference", String(200), nullable=False),
    Column("sessions", JSON, nullable=False),
    # Naive UTC, like the schedule store, because SQLite has no zone-aware type.
    Column("created", DateTime, nullable=False),
    Column("updated", DateTime, nullable=False),
)


@dataclass(frozen=True)
class PickSet:
    token: str
    conference: str
    sessions: tuple[str, ...]
    # Aware UTC; the personal feed's Last-Modified must move whenever the set changes.
    updated: datetime


def new_token() -> str:
    # A leading "-" would read as an option in `confcal push --picks TOKEN`; drawing again
    # costs under 0.03 bits of the 144.
    while (token := secrets.token_urlsafe(TOKEN_BYTES)).startswith("-"):
        pass
    return token


def is_token(value: str) -> bool:
    """Whether `value` has the shape of a token (anything else cannot name a pick set)."""
    return _TOKEN.fullmatch(value) is not None


class PickStore:
    """Pick sets in `engine`'s database; every method is one short transaction."""

    def __init__(
        self, engine: Engine, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.engine = engine
        self._clock = clock or (lambda: datetime.now(UTC))
        try:
            metadata.create_all(engine)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot create the picks table: {exc}") from exc

    def create(self, conference: str, sessions: Sequence[str]) -> PickSet:
        token, now = new_token(), self._now()
        with self.engine.begin() as conn:
            conn.execute(
                insert(picks).values(
                    token=token,
                    conference=conference,
                    sessions=list(sessions),
                    created=now,
                    updated=now,
                )
            )
        return PickSet(token, conference, tuple(sessions), from_db_time(now))

    def get(self, token: str) -> PickSet | None:
        if not is_token(token):
            return None
        with self.engine.connect() as conn:
            row = conn.execute(select(picks).where(picks.c.token == token)).first()
        if row is None:
            return None
        return PickSet(
            row.token, row.conference, tuple(row.sessions), from_db_time(row.updated)
        )

    def replace(self, token: str, sessions: Sequence[str]) -> PickSet | None:
        """Replace the whole set; None (and nothing written) for an unknown token."""
        if not is_token(token):
            return None
        now = self._now()
        with self.engine.begin() as conn:
            changed = conn.execute(
                update(picks)
                .where(picks.c.token == token)
                .values(sessions=list(sessions), updated=now)
                .returning(picks.c.conference)
            ).first()
        if changed is None:
            return None
        return PickSet(token, changed.conference, tuple(sessions), from_db_time(now))

    def _now(self) -> datetime:
        return to_db_time(self._clock())


def pick_store_for(store: object) -> PickStore:
    """Picks in the schedule store's own database when it has one (server.store.Store.engine);
    otherwise (a store double in tests) in a private in-memory database."""
    engine = getattr(store, "engine", None)
    if not isinstance(engine, Engine):
        # One shared connection, or every connection would see its own empty database.
        engine = create_engine(
            "sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False}
        )
    return PickStore(engine)
