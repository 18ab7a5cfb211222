"""Personal picks: a set of session ids behind an unguessable token, kept in the store's database.

There are no accounts: whoever holds the token owns the set, so the token is the only secret and
carries at least 128 random bits (secrets.token_urlsafe). The table is `personal_picks` in the
store's schema (server.store.tables). Request bodies are checked before they get here
(server.web.bodies): the store knows nothing of HTTP.

Every write is one short transaction. A database that stays locked (SQLite while another
process writes, beyond the engine's busy timeout) or unreachable raises `StoreBusy`, which the
server answers with 503 and Retry-After: a pick set is never half written.

Sets expire (server.store.expiry): `touch` records the day a set was last read, `purge` deletes
those nobody read or changed for a while after their conference ended.

Every create, replace and purge also logs the tokens it changed, numbered in commit order
(server.store.tables.pick_changes), so a server process holding a thousand sets asks
`changes_since` which of them changed instead of re-reading them all each second. Sets are
written only here: a row changed behind this class's back is not logged.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import (
    Connection,
    Engine,
    and_,
    create_engine,
    delete,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import StaticPool

from server.errors import StoreBusy
from server.store import schema
from server.store.expiry import KEEP_AFTER_END, conference_over, purge_cutoff
from server.store.rows import conference_from_row, from_db_time, to_db_time
from server.store.tables import conferences, pick_change_counter, pick_changes, picks

TOKEN_BYTES = 18  # 144 bits, above the 128 a bearer secret needs against guessing
_TOKEN = re.compile(r"[A-Za-z0-9_-]{22,64}")
# Tokens per statement in `touch` and `get_many`: well under SQLite's limit of bound parameters.
_TOUCH_BATCH = 500
# The change log reaches back this far (pruned by `purge`); a reader that fell further behind
# is told to re-read everything.
KEEP_CHANGES = timedelta(days=1)


@dataclass(frozen=True)
class PickSet:
    token: str
    conference: str
    sessions: tuple[str, ...]
    # Aware UTC; the personal feed's Last-Modified must move whenever the set changes.
    updated: datetime


@dataclass(frozen=True)
class PickChanges:
    """The sets written since a point of the change log (`PickStore.changes_since`)."""

    # Where the next call starts.
    mark: int
    # Tokens created, replaced or deleted since the mark asked about; None when that is not
    # known (no mark yet, or the log was pruned past it): every set may have changed.
    tokens: frozenset[str] | None


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

    def __init__(self, engine: Engine, clock: Callable[[], datetime] | None = None) -> None:
        self.engine = engine
        self._clock = clock or (lambda: datetime.now(UTC))
        schema.ensure(engine)

    def create(self, conference: str, sessions: Sequence[str]) -> PickSet:
        token, now = new_token(), self._now()
        with self._writing() as conn:
            conn.execute(
                insert(picks).values(
                    token=token,
                    conference=conference,
                    sessions=list(sessions),
                    created=now,
                    updated=now,
                )
            )
            _note_changes(conn, [token], now)
        return PickSet(token, conference, tuple(sessions), from_db_time(now))

    def get(self, token: str) -> PickSet | None:
        if not is_token(token):
            return None
        try:
            with self.engine.connect() as conn:
                row = conn.execute(select(picks).where(picks.c.token == token)).first()
        except OperationalError as exc:
            raise StoreBusy(f"cannot read pick sets now: {_first_line(exc)}") from exc
        if row is None:
            return None
        return PickSet(row.token, row.conference, tuple(row.sessions), from_db_time(row.updated))

    def get_many(self, tokens: Iterable[str]) -> dict[str, PickSet]:
        """The sets of those `tokens` that exist, by token: one query per batch of 500 (the
        server's pick cache re-reads every set it holds this way, server.snapshot.pick_cache)."""
        wanted = sorted({t for t in tokens if is_token(t)})
        found: dict[str, PickSet] = {}
        try:
            with self.engine.connect() as conn:
                for start in range(0, len(wanted), _TOUCH_BATCH):
                    batch = wanted[start : start + _TOUCH_BATCH]
                    for row in conn.execute(select(picks).where(picks.c.token.in_(batch))):
                        found[row.token] = PickSet(
                            row.token, row.conference, tuple(row.sessions), from_db_time(row.updated)
                        )
        except OperationalError as exc:
            raise StoreBusy(f"cannot read pick sets now: {_first_line(exc)}") from exc
        return found

    def changes_since(self, mark: int | None) -> PickChanges:
        """The tokens of the sets created, replaced or purged after `mark` (a `PickChanges.mark`
        from an earlier call; None the first time): two small reads, whatever the number of sets.
        The counter is read first, so every change up to the new mark has committed (writers
        take their numbers in commit order, server.store.tables.pick_changes)."""
        try:
            with self.engine.connect() as conn:
                latest: int = conn.execute(select(pick_change_counter.c.seq)).scalar_one()
                if mark is None or latest < mark:  # a first look, or another store behind the URL
                    return PickChanges(latest, None)
                if latest == mark:
                    return PickChanges(mark, frozenset())
                rows = conn.execute(
                    select(pick_changes.c.token).where(pick_changes.c.seq > mark, pick_changes.c.seq <= latest)
                ).all()
        except OperationalError as exc:
            raise StoreBusy(f"cannot read pick sets now: {_first_line(exc)}") from exc
        if len(rows) != latest - mark:  # pruned past the mark: the log no longer says what changed
            return PickChanges(latest, None)
        return PickChanges(latest, frozenset(row.token for row in rows))

    def replace(self, token: str, sessions: Sequence[str]) -> PickSet | None:
        """Replace the whole set; None (and nothing written) for an unknown token."""
        if not is_token(token):
            return None
        now = self._now()
        with self._writing() as conn:
            changed = conn.execute(
                update(picks)
                .where(picks.c.token == token)
                .values(sessions=list(sessions), updated=now)
                .returning(picks.c.conference)
            ).first()
            if changed is not None:
                _note_changes(conn, [token], now)
        if changed is None:
            return None
        return PickSet(token, changed.conference, tuple(sessions), from_db_time(now))

    def touch(self, tokens: Iterable[str], now: datetime) -> None:
        """Record that these sets were read on `now`'s day (UTC). One write per set and day at
        most, so a feed polled every few minutes does not turn reads into writes."""
        day = to_db_time(now).replace(hour=0, minute=0, second=0, microsecond=0)
        wanted = sorted({t for t in tokens if is_token(t)})
        with self._writing() as conn:
            for start in range(0, len(wanted), _TOUCH_BATCH):
                batch = wanted[start : start + _TOUCH_BATCH]
                conn.execute(
                    update(picks)
                    .where(picks.c.token.in_(batch))
                    .where(or_(picks.c.last_access.is_(None), picks.c.last_access < day))
                    .values(last_access=day)
                )

    def purge(self, now: datetime, keep: timedelta = KEEP_AFTER_END) -> int:
        """Delete the sets that expired by `now` (server.store.expiry); how many went. Sets of a
        conference the store does not hold are kept: nothing says when it ended."""
        with self._writing() as conn:
            ended = [conference_from_row(row) for row in conn.execute(select(conferences)).mappings()]
            gone = 0
            for conference in ended:
                over = conference_over(conference.end_date, conference.timezone, conference.day_change)
                cutoff = purge_cutoff(over, now, keep)
                if cutoff is None:
                    continue
                before = to_db_time(cutoff)
                stale = and_(
                    picks.c.conference == conference.slug,
                    picks.c.updated <= before,
                    or_(picks.c.last_access.is_(None), picks.c.last_access <= before),
                )
                purged = conn.execute(delete(picks).where(stale).returning(picks.c.token)).scalars().all()
                _note_changes(conn, purged, to_db_time(now))
                gone += len(purged)
            conn.execute(delete(pick_changes).where(pick_changes.c.at < to_db_time(now - KEEP_CHANGES)))
        return gone

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        try:
            with self.engine.begin() as conn:
                yield conn
        except OperationalError as exc:
            # SQLite still locked after the busy timeout, or the server unreachable: nothing
            # was written (the transaction rolled back), and trying again later may succeed.
            raise StoreBusy(f"cannot write pick sets now: {_first_line(exc)}") from exc

    def _now(self) -> datetime:
        return to_db_time(self._clock())


def _note_changes(conn: Connection, tokens: Sequence[str], now: datetime) -> None:
    """Log `tokens` as changed, in the write's own transaction, under the next numbers."""
    if not tokens:
        return
    counter = pick_change_counter.c.seq
    last: int = conn.execute(
        update(pick_change_counter).values(seq=counter + len(tokens)).returning(counter)
    ).scalar_one()
    first = last - len(tokens) + 1
    conn.execute(insert(pick_changes), [{"seq": first + i, "token": t, "at": now} for i, t in enumerate(tokens)])


def _first_line(exc: BaseException) -> str:
    message = str(getattr(exc, "orig", None) or exc)
    return message.splitlines()[0] if message else type(exc).__name__


def pick_store_for(store: object) -> PickStore:
    """Picks in the schedule store's own database when it has one (server.store.Store.engine);
    otherwise (a store double in tests) in a private in-memory database."""
    engine = getattr(store, "engine", None)
    if not isinstance(engine, Engine):
        # One shared connection, or every connection would see its own empty database.
        engine = create_engine("sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False})
    return PickStore(engine)
