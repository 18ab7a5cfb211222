"""Sources the server keeps fresh: what `confcal source add` registered, and how each refresh went.

Each source row is claimed by one refresh at a time, across processes: `claim` is a single
conditional UPDATE (the row's generation must still be the one the job was queued for and no
unexpired lease may be held), which SQLite and PostgreSQL both apply atomically. `finish` records
the outcome, moves `next_run` one interval on, bumps the generation and drops the lease, again only
if the generation is still the claimed one, so a refresh that outlived its lease cannot overwrite a
newer one.

A source's credentials (HTTP Basic auth, headers such as an API key) are one Fernet token
(server.crypto, as the CalDAV passwords) in `schedule_source_credentials`, decrypted only for a
refresh (`login`); its URLs hold no userinfo.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import SQLAlchemyError

from feeds.outbound import Credentials, Validators
from server.crypto import Cipher, Password, key_for
from server.errors import StoreError
from server.store.rows import from_db_time, to_db_time
from server.store.tables import source_credentials, sources


class Outcome(StrEnum):
    OK = "ok"  # fetched and applied: a new schedule version
    UNCHANGED = "unchanged"  # 304, or the same bytes as last applied
    REFUSED = "refused"  # fetched but not applied (damaged pages, too destructive): live schedule kept
    ERROR = "error"  # could not be fetched


@dataclass(frozen=True)
class SourceSpec:
    """What `confcal source add` says about a source."""

    urls: tuple[str, ...]
    interval: timedelta
    conference: str | None = None
    tz: str | None = None
    format: str | None = None
    allow_private: bool = False


@dataclass(frozen=True)
class SourceLogin:
    """What a source's host asks for: Basic auth (`username` and `password`) and/or `headers`
    (name, value). Values are Passwords: a repr or a traceback shows `***`."""

    username: str | None = None
    password: Password = Password("")
    headers: tuple[tuple[str, Password], ...] = ()

    def for_urls(self, urls: tuple[str, ...]) -> Credentials:
        """The credentials a fetch sends, to the origins of the source's own URLs only."""
        return Credentials(
            origins=frozenset(Credentials.origin(u) for u in urls),
            username=self.username,
            password=self.password.reveal(),
            headers=tuple((name, value.reveal()) for name, value in self.headers),
        )


@dataclass(frozen=True)
class Source:
    id: int
    spec: SourceSpec
    validators: tuple[Validators, ...]  # one per URL, as the last applied fetch answered
    digest: str | None
    last_fetch: datetime | None
    result: Outcome | None
    message: str | None
    next_run: datetime
    generation: int


@dataclass(frozen=True)
class Finished:
    """How one refresh went. `validators`/`digest` None: keep the stored ones (nothing applied)."""

    outcome: Outcome
    message: str
    validators: tuple[Validators, ...] | None = None
    digest: str | None = None


class SourceStore:
    """The `schedule_source` table of a store (`Store.open` creates it with the others)."""

    def __init__(self, engine: Engine, cipher: Callable[[], Cipher] | None = None) -> None:
        self.engine = engine
        self._cipher = cipher or (lambda: key_for(engine))

    def add(self, spec: SourceSpec, now: datetime, login: SourceLogin | None = None) -> Source:
        """Register a source, due at once; its `login` is stored encrypted."""
        values = {
            "conference": spec.conference,
            "urls": list(spec.urls),
            "tz": spec.tz,
            "format": spec.format,
            "interval": int(spec.interval.total_seconds()),
            "allow_private": spec.allow_private,
            "validators": [[None, None] for _ in spec.urls],
            "next_run": to_db_time(now),
            "generation": 0,
            "created": to_db_time(now),
        }
        sealed = None if login is None else self._cipher().encrypt(_sealable(login))
        with self._begin() as conn:
            key = conn.execute(insert(sources).values(**values)).inserted_primary_key
            assert key is not None
            if sealed is not None:
                conn.execute(insert(source_credentials).values(source_id=int(key[0]), sealed=sealed))
        found = self.get(int(key[0]))
        assert found is not None
        return found

    def login(self, source: Source) -> SourceLogin | None:
        """The source's credentials, decrypted (SecretUndecryptable if the key is no longer configured)."""
        query = select(source_credentials.c.sealed).where(source_credentials.c.source_id == source.id)
        with self._connect() as conn:
            sealed = conn.execute(query).scalar_one_or_none()
        if sealed is None:
            return None
        document = json.loads(self._cipher().decrypt(sealed).reveal())
        return SourceLogin(
            username=document["username"],
            password=Password(document["password"]),
            headers=tuple((name, Password(value)) for name, value in document["headers"]),
        )

    def get(self, source_id: int) -> Source | None:
        with self._connect() as conn:
            row = conn.execute(select(sources).where(sources.c.id == source_id)).mappings().first()
        return None if row is None else _from_row(row)

    def all(self) -> tuple[Source, ...]:
        with self._connect() as conn:
            found = conn.execute(select(sources).order_by(sources.c.id)).mappings().all()
        return tuple(_from_row(row) for row in found)

    def with_login(self) -> frozenset[int]:
        """The ids of the sources that have credentials stored (without decrypting them)."""
        with self._connect() as conn:
            return frozenset(conn.execute(select(source_credentials.c.source_id)).scalars())

    def remove(self, source_id: int) -> bool:
        with self._begin() as conn:
            conn.execute(delete(source_credentials).where(source_credentials.c.source_id == source_id))
            return conn.execute(delete(sources).where(sources.c.id == source_id)).rowcount == 1

    def claim(self, source_id: int, generation: int, now: datetime, lease: timedelta) -> Source | None:
        """Take the source for one refresh, or None if another process holds it or the run
        `generation` names is over (or the source was removed)."""
        moment = to_db_time(now)
        free = sources.c.lease_until.is_(None) | (sources.c.lease_until < moment)
        query = (
            update(sources)
            .where((sources.c.id == source_id) & (sources.c.generation == generation) & free)
            .values(lease_until=to_db_time(now + lease))
        )
        with self._begin() as conn:
            if conn.execute(query).rowcount != 1:
                return None
        return self.get(source_id)

    def finish(self, source: Source, finished: Finished, now: datetime) -> Source | None:
        """Record the refresh of the claimed `source`; None if it was removed or taken over."""
        values: dict[str, Any] = {
            "last_fetch": to_db_time(now),
            "result": finished.outcome.value,
            "message": finished.message,
            "next_run": to_db_time(now + source.spec.interval),
            "generation": source.generation + 1,
            "lease_until": None,
        }
        if finished.validators is not None:
            values["validators"] = [[v.etag, v.last_modified] for v in finished.validators]
        if finished.digest is not None:
            values["digest"] = finished.digest
        key = (sources.c.id == source.id) & (sources.c.generation == source.generation)
        with self._begin() as conn:
            if conn.execute(update(sources).where(key).values(**values)).rowcount != 1:
                return None
        return self.get(source.id)

    def overdue(self, before: datetime) -> tuple[Source, ...]:
        """Sources due before `before` and not held by a live lease: their refresh job was lost
        (a queue that drops a job when its worker dies) or never queued."""
        moment = to_db_time(before)
        free = sources.c.lease_until.is_(None) | (sources.c.lease_until < moment)
        query = select(sources).where((sources.c.next_run <= moment) & free).order_by(sources.c.id)
        with self._connect() as conn:
            found = conn.execute(query).mappings().all()
        return tuple(_from_row(row) for row in found)

    def _connect(self) -> AbstractContextManager[Connection]:
        return _guarded(self.engine, begin=False)

    def _begin(self) -> AbstractContextManager[Connection]:
        return _guarded(self.engine, begin=True)


@contextmanager
def _guarded(engine: Engine, *, begin: bool) -> Iterator[Connection]:
    """A connection (or transaction) whose database errors become one-line StoreErrors."""
    try:
        with engine.begin() if begin else engine.connect() as conn:
            yield conn
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot use the sources table: {_first_line(exc)}") from exc


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc)
    return text.splitlines()[0] if text else type(exc).__name__


def _from_row(row: RowMapping) -> Source:
    spec = SourceSpec(
        urls=tuple(row["urls"]),
        interval=timedelta(seconds=row["interval"]),
        conference=row["conference"],
        tz=row["tz"],
        format=row["format"],
        allow_private=bool(row["allow_private"]),
    )
    last = row["last_fetch"]
    return Source(
        id=int(row["id"]),
        spec=spec,
        validators=tuple(Validators(etag, modified) for etag, modified in row["validators"]),
        digest=row["digest"],
        last_fetch=None if last is None else from_db_time(last),
        result=None if row["result"] is None else Outcome(row["result"]),
        message=row["message"],
        next_run=from_db_time(row["next_run"]),
        generation=int(row["generation"]),
    )


def _sealable(login: SourceLogin) -> Password:
    """The login as the one text the cipher encrypts."""
    document = {
        "username": login.username,
        "password": login.password.reveal(),
        "headers": [[name, value.reveal()] for name, value in login.headers],
    }
    return Password(json.dumps(document))
