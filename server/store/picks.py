"""Personal picks: a set of session ids behind an unguessable token, kept in the store's database.

There are no accounts: whoever holds the token owns the set, so the token is the only secret and
carries at least 128 random bits (secrets.token_urlsafe). The table lives on its own MetaData, so
the schedule store's schema (server.store.tables) knows nothing about it; `create_all` checks
first, so opening an existing database is a no-op. The ids are one JSON column: a pick set is
always read and written whole, never queried by session.

`parse_picks` turns a request body into ids or raises `PicksError` carrying the HTTP status and a
one-line message, so the API never answers a bad body with a 500.
"""

from __future__ import annotations

import json
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

from server.errors import ServerError, StoreError
from server.store.rows import from_db_time, to_db_time

MAX_PICKS = 500
# 500 ids of up to 160 characters, quoted, plus the envelope: anything bigger is not a pick set.
MAX_BODY_BYTES = 96 * 1024
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


class PicksError(ServerError):
    """A pick request cannot be honoured; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


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


def parse_picks(body: bytes, known: Callable[[str], bool]) -> tuple[str, ...]:
    """The session ids of a `{"sessions": [ids]}` body, first-seen order, without repeats.

    400: not JSON, or an id `known` rejects (the message names it); 422: JSON of the wrong
    shape; 413: more than MAX_PICKS distinct ids or an over-long body.
    """
    if len(body) > MAX_BODY_BYTES:
        raise PicksError(f"request body over {MAX_BODY_BYTES} bytes", 413)
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PicksError(f"request body is not JSON: {exc}") from None
    if not isinstance(document, dict) or "sessions" not in document:
        raise PicksError('expected a JSON object {"sessions": [session ids]}', 422)
    ids = document["sessions"]
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise PicksError('"sessions" must be a list of session id strings', 422)
    unique = tuple(dict.fromkeys(ids))
    if len(unique) > MAX_PICKS:
        raise PicksError(
            f"at most {MAX_PICKS} sessions can be picked, got {len(unique)}", 413
        )
    unknown = [i for i in unique if not known(i)]
    if unknown:
        named = ", ".join(repr(i[:80]) for i in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        noun = "session id" if len(unknown) == 1 else "session ids"
        raise PicksError(f"unknown {noun} {named}{more}")
    return unique


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
