"""What every version published: the session rows each version wrote, so any version of a
conference can be rebuilt (for `confcal diff`, `confcal rollback` and the public changelog).

A version writes only the sessions it added, changed, cancelled or restored (plus silent edits
such as a bio); storing those rows (one compressed JSON value per version) keeps the history as
compact as the changes themselves. The content of version V is, for every session id, its row
from the newest version <= V.

A store made before this table existed has versions without recorded rows. Its first ingest
after the upgrade records the live rows as they were under the version they belong to (the
*baseline*), so from that version on every version can be rebuilt; older ones cannot, and asking
for them is one error line naming the first version that can.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, overload

from sqlalchemy import Connection, func, select

from feeds.model import Session, Status
from server.errors import StoreError
from server.store import rows
from server.store.tables import sessions, version_content, versions

_TIMES = ("starts_at", "ends_at", "modified")
_LEFT_OUT = ("conference", "version")  # the row's key says them


def encode(written: Sequence[Mapping[str, Any]]) -> bytes:
    """Session rows as `rows.session_row` makes them, compressed; pure."""
    found = []
    for stored in written:
        row = {k: v for k, v in stored.items() if k not in _LEFT_OUT}
        for name in _TIMES:
            row[name] = row[name].isoformat() if row[name] is not None else None
        found.append(row)
    return zlib.compress(json.dumps(found, separators=(",", ":"), sort_keys=True).encode(), 6)


def decode(data: bytes) -> list[Session]:
    return [_session(row) for row in json.loads(zlib.decompress(data))]


def _session(row: dict[str, Any]) -> Session:
    for name in _TIMES:
        row[name] = datetime.fromisoformat(row[name]) if row[name] is not None else None
    return rows.session_from_row(row)


class Written(Sequence[Session]):
    """The sessions one version wrote, in the order it wrote them, each made into a `Session` only
    when first asked for. The changelog's walk needs every row's id and status but the whole
    session only of the rows a later version changed: the version that published 10,000 sessions
    is read whole on every rebuild, and making every one of its sessions would be costly."""

    def __init__(self, found: Iterable[dict[str, Any]] = (), made: Iterable[Session] = ()) -> None:
        self._rows = {row["id"]: row for row in found}  # encode's JSON objects, not yet sessions
        self._made = {s.id: s for s in made}
        self._ids = (*self._rows, *self._made)

    @classmethod
    def of(cls, data: bytes) -> Written:
        """A version's stored rows (`encode`)."""
        return cls(json.loads(zlib.decompress(data)))

    def ids(self) -> tuple[str, ...]:
        return self._ids

    def session(self, sid: str) -> Session | None:
        """The session `sid` as this version wrote it; None when it did not write it."""
        made = self._made.get(sid)
        if made is None and sid in self._rows:
            made = self._made[sid] = _session(self._rows.pop(sid))
        return made

    def cancelled(self, sid: str) -> bool:
        """Whether this version wrote `sid` cancelled, without making its session."""
        row = self._rows.get(sid)
        return row["status"] == Status.CANCELLED.value if row is not None else self._made[sid].cancelled

    @overload
    def __getitem__(self, index: int) -> Session: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Session]: ...

    def __getitem__(self, index: int | slice) -> Session | Sequence[Session]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        found = self.session(self._ids[index])
        assert found is not None  # every id it holds is a session it wrote
        return found

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[Session]:
        return (self[i] for i in range(len(self._ids)))


class UnknownVersion(StoreError):
    """A version number the store (or this conference) does not hold, or one whose content was
    published before the store recorded content."""


@dataclass(frozen=True)
class VersionRecord:
    """One version of a conference as `schedule_version` holds it."""

    version: int
    conference: str
    created: datetime
    diff: Mapping[str, Any]


@dataclass(frozen=True)
class Recording:
    """What `record` writes for one new version, encoded before the write transaction:
    `baseline` is the live rows at `seen` when the conference has versions but no content yet."""

    written: bytes
    baseline: bytes | None = None


def prepare(
    conn: Connection, slug: str, written: Sequence[Mapping[str, Any]], *, previous: Sequence[Session], seen: int
) -> Recording:
    """Encode the rows a version writes (and the baseline, see the module doc) outside the
    write lock."""
    needs_baseline = bool(seen and previous) and first_recorded(conn, slug) is None
    baseline = encode([rows.session_row(slug, s, seen) for s in previous]) if needs_baseline else None
    return Recording(encode(written), baseline)


def record(conn: Connection, slug: str, version: int, recording: Recording, *, seen: int) -> None:
    """Write a prepared recording as the content of `version` (in the version's transaction)."""
    values = [{"conference": slug, "version": version, "sessions": recording.written}]
    if recording.baseline is not None and first_recorded(conn, slug) is None:
        values.insert(0, {"conference": slug, "version": seen, "sessions": recording.baseline})
    conn.execute(version_content.insert(), values)


def first_recorded(conn: Connection, slug: str) -> int | None:
    """The oldest version of `slug` whose content can be rebuilt (None: nothing recorded)."""
    found = conn.execute(select(func.min(version_content.c.version)).where(version_content.c.conference == slug))
    value = found.scalar()
    return None if value is None else int(value)


def version_records(conn: Connection, slug: str | None = None) -> list[VersionRecord]:
    """The versions of `slug` (every conference when None), oldest first."""
    query = select(versions).order_by(versions.c.id)
    if slug is not None:
        query = query.where(versions.c.conference == slug)
    return [
        VersionRecord(int(r["number"]), r["conference"], rows.from_db_time(r["created"]), r["diff"])
        for r in conn.execute(query).mappings()
    ]


def find_version(conn: Connection, version: int, conference: str | None) -> VersionRecord:
    """The record of `version` of `conference`; with no conference named, of the one conference
    that has a version of that number (each conference counts its own)."""
    query = select(versions).where(versions.c.number == version).order_by(versions.c.id)
    found = conn.execute(query).mappings().all()
    if not found:
        raise UnknownVersion(f"no version {version} in the store")
    if conference is not None:
        mine = [r for r in found if r["conference"] == conference]
        if not mine:
            others = ", ".join(r["conference"] for r in found)
            raise UnknownVersion(f"version {version} is a version of {others}, not of {conference}")
        found = mine
    if len(found) > 1:
        named = ", ".join(r["conference"] for r in found)
        raise UnknownVersion(f"several conferences have a version {version} ({named}): name one with --conference")
    record = found[0]
    return VersionRecord(version, record["conference"], rows.from_db_time(record["created"]), record["diff"])


def content_at(conn: Connection, slug: str, version: int) -> dict[str, Session]:
    """Every session of `slug` as version `version` published it (cancelled ones included)."""
    start = first_recorded(conn, slug)
    if start is None:
        latest = conn.execute(select(func.max(versions.c.number)).where(versions.c.conference == slug)).scalar()
        if latest == version:  # nothing recorded yet, but the live rows are this version
            found = conn.execute(select(sessions).where(sessions.c.conference == slug)).mappings()
            return {r["id"]: rows.session_from_row(r) for r in found}
        raise UnknownVersion(f"version {version} was published before this store recorded session content")
    if version < start:
        raise UnknownVersion(
            f"version {version} was published before this store recorded session content (from version {start} on)"
        )
    query = (
        select(version_content.c.sessions)
        .where(version_content.c.conference == slug, version_content.c.version <= version)
        .order_by(version_content.c.version)
    )
    # Ascending versions: a later row of the same session replaces the earlier one.
    return {s.id: s for (data,) in conn.execute(query) for s in decode(data)}


def rows_by_version(conn: Connection, slug: str) -> dict[int, Sequence[Session]]:
    """Every recorded row of `slug`, by the version that wrote it (the changelog's walk), each
    made into a session when first used (`Written`)."""
    query = (
        select(version_content.c.version, version_content.c.sessions)
        .where(version_content.c.conference == slug)
        .order_by(version_content.c.version)
    )
    return {int(version): Written.of(data) for version, data in conn.execute(query)}
