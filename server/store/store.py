"""The schedule store: every ingest is one transaction that turns a complete snapshot into a new
schedule version (see server.store.diff for what counts as a change).

A store holds any number of conferences, each keyed by its slug; an ingest touches only the rows
of its own conference, so what another conference serves never changes with it. Each conference
numbers its own versions (1, 2, 3; `conferences()` tells each one's latest); `version()` is the
store's global, increasing version id, cheap to poll for "anything new". An ingest or rollback
that changes nothing records no version: its report says `no_change` and names the live version.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left, insort
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Self

from sqlalchemy import Connection, Engine, Text, bindparam, func, select, type_coerce, update
from sqlalchemy.exc import SQLAlchemyError

from feeds.model import Conference, Schedule, Session, Status
from server.errors import StoreError
from server.store import changelog_since, history, rows, schema
from server.store.caldav_wanted import want_for_conference
from server.store.changelog import changelog
from server.store.changes import VersionChanges
from server.store.diff import Plan, check_not_destructive, plan_ingest, plan_snapshot
from server.store.engine import display, make_engine
from server.store.location import resolve_url
from server.store.report import ConferenceSummary, IngestReport
from server.store.schema import StoreOutdated
from server.store.tables import conferences, sessions, versions

# Plans made again when another ingest of the same conference commits while one is planned.
_PLAN_ATTEMPTS = 3


@dataclasses.dataclass(frozen=True)
class Since:
    """A held schedule brought up to date (`Store.read_since`), with the sessions the versions
    since wrote: every other session of `schedule` is the held schedule's own object."""

    schedule: Schedule
    written: tuple[Session, ...]


@dataclasses.dataclass(frozen=True)
class RowWrites:
    """What wrote the rows `Store.live` read, filled by it: each version of the conference by
    number, with a name of that write (the version's id, number and time, and the schema the
    rows are read under), and each session's id with the number of the version that wrote its
    row. A row is written only with a new version, so a session's id and its version's name
    mean the same row, of which `live` makes the same session: a build keys a session's files
    by them instead of digesting every field of the session, and tells the sessions written
    since a version it made (a version's name changes when its store or conference is made
    anew)."""

    versions: dict[int, str] = dataclasses.field(default_factory=dict)
    rows: dict[str, int] = dataclasses.field(default_factory=dict)

    def name(self, session: str) -> str | None:
        """The name of the write that made `session`'s row; None if not read."""
        number = self.rows.get(session)
        return None if number is None else self.versions[number]


class _RolledBack(Exception):
    """Ends a dry-run ingest's transaction (rolled back by `engine.begin()`), carrying its report."""

    def __init__(self, report: IngestReport) -> None:
        super().__init__("dry run")
        self.report = report


class Store:
    """Open with `Store.open(url)`; `engine` is public so other parts can add their own tables."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str | None = None) -> Store:
        resolved = resolve_url(url)
        engine = make_engine(resolved)
        try:
            # Upgrades a SQLite store; any other store must already be up to date (server.store.schema).
            schema.ensure(engine)
        except StoreOutdated:
            engine.dispose()
            raise
        except StoreError as exc:
            engine.dispose()
            raise StoreError(f"cannot open store {display(resolved)}: {exc}") from exc
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def version(self) -> int:
        """The id of the newest version of any conference, 0 for an empty store (the first of
        `changes()`): it rises with every recorded version and is never reused. Not a version
        number people see (those count per conference)."""
        return self.changes()[0]

    def changes(self) -> tuple[int, int]:
        """What a server polls to learn that the schedules changed: `version()` and how many
        versions the store holds. An ingest raises the first; a removal (server.store.removal)
        lowers the second, which the first alone does not show unless the conference removed
        held the newest version. One query."""
        try:
            with self.engine.connect() as conn:
                newest, held = conn.execute(
                    select(func.coalesce(func.max(versions.c.id), 0), func.count(versions.c.id))
                ).one()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc
        return int(newest), int(held)

    def ingest(
        self,
        schedule: Schedule,
        *,
        force: bool = False,
        now: datetime | None = None,
        dry_run: bool = False,
        demo_seed: bool = False,
    ) -> IngestReport:
        """Store `schedule` as a complete snapshot of its conference, in one transaction.

        Raises IngestRefused (store untouched) when it would cancel more than a third of the live
        sessions and `force` is false. An ingest that would write no session and leaves the
        conference's details as they are records no version: its report has `no_change` and
        the live version's number (an empty version would only add a changelog entry and make
        every server rebuild what it serves for nothing).

        The diff is planned before the write transaction starts, so the store's write lock (all
        of SQLite) is held only while rows are written and pick sets can be saved meanwhile. If
        another ingest of the same conference lands in between, the plan is made again.

        `dry_run` does all of it, then rolls the write transaction back: the report is what a real
        ingest would say (the version it would create included), by the same code, and the store
        is left as it was.

        `demo_seed` marks the version as the built-in demo's seed (server.web.demo).
        """
        moment = (now or datetime.now(UTC)).astimezone(UTC)

        def plan(previous: list[Session]) -> tuple[Plan, IngestReport]:
            made = plan_ingest(schedule.sessions, previous, moment)
            check_not_destructive(made, force=force)
            return made, dataclasses.replace(IngestReport.of(made, schedule, created=moment), demo_seed=demo_seed)

        return self._publish(schedule.conference, plan, moment, dry_run=dry_run)

    def rollback(
        self, version: int, *, conference: str | None = None, force: bool = False, now: datetime | None = None
    ) -> IngestReport:
        """Publish a new version whose sessions are what `version` published: sessions changed
        since get that content back with a higher revision (so calendars update), sessions added
        since are cancelled. Refused like an ingest when it would cancel more than a third of the
        live sessions, unless `force`. UnknownVersion for a version the store cannot rebuild."""
        moment = (now or datetime.now(UTC)).astimezone(UTC)
        try:
            with self.engine.connect() as conn:
                target = history.find_version(conn, version, conference)
                content = history.content_at(conn, target.conference, version)
                found = conn.execute(select(conferences).where(conferences.c.slug == target.conference))
                conf = rows.conference_from_row(found.mappings().one())
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc
        restored = Schedule(conference=conf, sessions=tuple(content.values()))

        def plan(previous: list[Session]) -> tuple[Plan, IngestReport]:
            made = plan_snapshot(restored.sessions, previous, moment)
            check_not_destructive(made, force=force)
            report = IngestReport.of(made, restored, created=moment)
            return made, dataclasses.replace(report, rollback_of=version)

        return self._publish(conf, plan, moment, dry_run=False)

    def _publish(
        self,
        conference: Conference,
        make_plan: Callable[[list[Session]], tuple[Plan, IngestReport]],
        moment: datetime,
        *,
        dry_run: bool,
    ) -> IngestReport:
        """Plan against the stored sessions, then write the plan as a new version in one
        transaction (see `ingest`), recording the rows it wrote (server.store.history)."""
        slug = conference.slug
        try:
            for _ in range(_PLAN_ATTEMPTS):
                with self.engine.connect() as conn:
                    # The version first: any ingest committed after it shows as a new version.
                    seen = _latest_version(conn, slug)
                    previous = _load_sessions(conn, slug)
                    plan, report = make_plan(previous)
                    if seen and not plan.writes and _stored_conference(conn, slug) == rows.conference_row(conference):
                        # Nothing to publish: a new version would differ from the live one only
                        # by its number (and fill the changelog with empty entries).
                        return dataclasses.replace(report, version=seen, no_change=True)
                    # Made once, for the table and the version's recorded content alike.
                    written = [rows.session_row(slug, s, 0) for s in plan.writes]
                    recording = history.prepare(conn, slug, written, previous=previous, seen=seen)
                with self.engine.begin() as conn:
                    # Writing the conference row first takes the write lock (SQLite) or row lock
                    # (PostgreSQL), so two concurrent ingests cannot interleave their writes.
                    _upsert_conference(conn, conference)
                    if _latest_version(conn, slug) != seen:
                        conn.rollback()
                        continue
                    number = seen + 1
                    conn.execute(
                        versions.insert().values(
                            conference=slug,
                            number=number,
                            created=rows.to_db_time(moment),
                            diff=report.diff_json(),
                            counts=report.counts_json(),
                        )
                    )
                    _write_sessions(conn, written, {s.id for s in previous}, number)
                    history.record(conn, slug, number, recording, seen=seen)
                    if touched := {*plan.changed, *plan.cancelled, *plan.restored}:
                        # Durable with the version itself: attached calendars holding a changed
                        # session want a sync even if this process dies before queueing one.
                        want_for_conference(conn, slug, touched, moment)
                    if dry_run:
                        raise _RolledBack(dataclasses.replace(report, version=number))
                return dataclasses.replace(report, version=number)
        except _RolledBack as done:
            return done.report
        except SQLAlchemyError as exc:
            raise StoreError(f"ingest failed, store unchanged: {_first_line(exc)}") from exc
        raise StoreError("ingest failed, store unchanged: other ingests of this conference kept landing first")

    def conferences(self) -> tuple[ConferenceSummary, ...]:
        """Every conference in the store, in the order they were first ingested, with its live
        (confirmed) session count and its own latest version. Two queries, however many
        conferences."""
        # A conference's newest version has both its highest id and its highest number.
        first, latest = func.min(versions.c.id), func.max(versions.c.id)
        by_version = select(versions.c.conference, first.label("first"), latest.label("latest")).group_by(
            versions.c.conference
        )
        live_counts = (
            select(sessions.c.conference, func.count().label("sessions"))
            .where(sessions.c.status == Status.CONFIRMED.value)
            .group_by(sessions.c.conference)
        )
        try:
            with self.engine.connect() as conn:
                order = {r.conference: (r.first, r.latest) for r in conn.execute(by_version)}
                latest_ids = [ids[1] for ids in order.values()]
                newest = {
                    r.conference: (int(r.number), rows.from_db_time(r.created))
                    for r in conn.execute(
                        select(versions.c.conference, versions.c.number, versions.c.created).where(
                            versions.c.id.in_(latest_ids)
                        )
                    )
                }
                counts = {r.conference: int(r.sessions) for r in conn.execute(live_counts)}
                found = conn.execute(select(conferences)).mappings().all()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc
        summaries = [
            ConferenceSummary(
                conference=rows.conference_from_row(row),
                sessions=counts.get(row["slug"], 0),
                first_version=order[row["slug"]][0],
                version=newest[row["slug"]][0],
                recorded=newest[row["slug"]][1],
            )
            for row in found
            if row["slug"] in order
        ]
        return tuple(sorted(summaries, key=lambda c: c.first_version))

    def default_conference(self) -> str | None:
        """The slug of the conference ingested first: the one the root paths serve unless
        `serve --default` names another. Never changes once set, so subscribed feed URLs at the
        root keep naming the same conference when others are added."""
        try:
            with self.engine.connect() as conn:
                return conn.execute(select(versions.c.conference).order_by(versions.c.id).limit(1)).scalar_one_or_none()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc

    def live(self, conference: str | None = None, writes: RowWrites | None = None) -> Schedule | None:
        """The stored schedule of `conference` (slug; default: `default_conference()`), with every
        session ever stored - confirmed and cancelled - ordered by start, title, id; `writes`,
        when given, is filled with the versions that wrote the rows read (RowWrites)."""
        slug = conference if conference is not None else self.default_conference()
        if slug is None:
            return None
        try:
            with self.engine.connect() as conn:
                if slug is None:
                    return None
                row = conn.execute(select(conferences).where(conferences.c.slug == slug)).mappings().first()
                if row is None:
                    return None
                conf = rows.conference_from_row(row)
                stored = _load_sessions(conn, conf.slug, writes)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc
        ordered = sorted(stored, key=lambda s: (s.start, s.title, s.id))
        return Schedule(conference=conf, sessions=tuple(ordered))

    def read_since(
        self,
        previous: Schedule,
        since: int,
        known: Mapping[str, Session] | None = None,
        writes: RowWrites | None = None,
    ) -> Since | None:
        """`live(previous.conference.slug)` read incrementally, for a server that holds `previous`
        as read when the conference's latest version was `since`: only the rows versions after
        `since` wrote (every write bumps the row's `version`, and rows are never deleted) are read
        and converted; every other session is `previous`'s own object. Reading and converting
        all the rows of a large conference took longer than the rest of publishing a new
        version, and keeping the objects lets the server tell unchanged feeds by identity.
        `known` (`previous`'s sessions by id, when the caller keeps them) spares a pass over
        every session to find those the rows replace. `writes`, when given, gets the versions
        as `live` gives them, and the rows read here: each written session's id with its
        version, or taken out of `writes.rows` when a version committed after the versions were
        read wrote it."""
        slug = previous.conference.slug
        try:
            with self.engine.connect() as conn:
                row = conn.execute(select(conferences).where(conferences.c.slug == slug)).mappings().first()
                if row is None:
                    return None
                conf = rows.conference_from_row(row)
                if writes is not None:
                    _read_versions(conn, slug, writes)
                query = select(sessions).where((sessions.c.conference == slug) & (sessions.c.version > since))
                found = list(conn.execute(query).mappings())
                written = tuple(rows.session_from_row(r) for r in found)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc
        if writes is not None:
            for r, session in zip(found, written, strict=True):
                if r["version"] in writes.versions:
                    writes.rows[session.id] = r["version"]
                else:
                    writes.rows.pop(session.id, None)
        if not written and conf == previous.conference:
            return Since(previous, written)
        placed = _reordered(previous.sessions, written, known)
        return Since(Schedule(conference=conf, sessions=tuple(placed)), written)

    def history(self, conference: str | None = None) -> tuple[IngestReport, ...]:
        """Every recorded version (newest first), optionally of one conference only."""
        query = select(versions).order_by(versions.c.id.desc())
        if conference is not None:
            query = query.where(versions.c.conference == conference)
        try:
            with self.engine.connect() as conn:
                found = conn.execute(query).mappings().all()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc
        return tuple(
            IngestReport.from_json(
                r["number"], r["conference"], rows.from_db_time(r["created"]), r["diff"], r["counts"]
            )
            for r in found
        )

    def content(self, version: int, conference: str | None = None) -> tuple[str, dict[str, Session]]:
        """The conference `version` belongs to and every session as that version published it
        (server.store.history). UnknownVersion when the store cannot rebuild it."""
        try:
            with self.engine.connect() as conn:
                record = history.find_version(conn, version, conference)
                return record.conference, history.content_at(conn, record.conference, version)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc

    def changelog(self, conference: str, given: changelog_since.Before | None = None) -> tuple[VersionChanges, ...]:
        """The visible changes of every version of `conference`, oldest first (visible or not;
        server.store.changelog). Empty for a conference the store does not hold. `given`: its
        sessions as of a version, which spare parsing the first version's rows
        (changelog_since.changelog_given)."""
        try:
            with self.engine.connect() as conn:
                found = None if given is None else changelog_since.changelog_given(conn, conference, given)
                if found is not None:
                    return found
                records = history.version_records(conn, conference)
                written = history.rows_by_version(conn, conference)
                if records and not written:  # a store from before content was recorded
                    written = {records[-1].version: _load_sessions(conn, conference)}
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc
        return changelog(records, written)

    def changelog_stamps(self, conference: str) -> changelog_since.Stamps:
        """What names each version's changelog entry (server.store.changelog_since)."""
        try:
            with self.engine.connect() as conn:
                return changelog_since.stamps(conn, conference)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc

    def changelog_since(
        self, conference: str, since: int, live: int, before: changelog_since.Before | None = None
    ) -> tuple[VersionChanges, ...] | None:
        """`changelog(conference)`'s entries after version `since` (whose entry counted `live`
        sessions), reading the rows they wrote and changed only; None when the whole changelog
        must be read (server.store.changelog_since, which says what `before` spares)."""
        try:
            with self.engine.connect() as conn:
                return changelog_since.changelog_since(conn, conference, since, live, before)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot read store: {_first_line(exc)}") from exc


# Past this many rows written since, sorting every session again is as cheap as placing each.
_PLACED = 200


def _live_order(session: Session) -> tuple[datetime, str, str]:
    return session.start, session.title, session.id


def _reordered(
    ordered: tuple[Session, ...], written: tuple[Session, ...], known: Mapping[str, Session] | None
) -> list[Session]:
    """`ordered` (by `_live_order`) with the sessions of `written` in place of those of the same
    id: each taken out and put in its place, not the whole sorted again (a 50,000-session sort
    was a tenth of a second of every new version a server publishes). `known` is `ordered` by id,
    or None to find the sessions replaced by a pass over `ordered`."""
    if len(written) > _PLACED:
        by_id = {s.id: s for s in ordered}
        by_id.update((s.id, s) for s in written)
        return sorted(by_id.values(), key=_live_order)
    placed = list(ordered)
    if known is not None:
        replaced = [old for old in (known.get(s.id) for s in written) if old is not None]
    else:
        ids = {s.id for s in written}
        replaced = [s for s in ordered if s.id in ids]
    for old in replaced:
        at = bisect_left(placed, _live_order(old), key=_live_order)
        while placed[at] is not old:
            at += 1
        del placed[at]
    for new in written:
        insort(placed, new, key=_live_order)
    return placed


def _first_line(exc: BaseException) -> str:
    # SQLAlchemy messages carry the SQL and a link on further lines; the CLI prints one line.
    text = str(getattr(exc, "orig", None) or exc)
    return text.splitlines()[0] if text else type(exc).__name__


def _upsert_conference(conn: Connection, conference: Conference) -> None:
    values = rows.conference_row(conference)
    updated = conn.execute(update(conferences).where(conferences.c.slug == conference.slug).values(**values))
    if updated.rowcount == 0:
        conn.execute(conferences.insert().values(**values))


# Every session column, the JSON and instant ones as the driver gives them (SQLite: their text):
# rows.session_from_row decodes each distinct text once, where the columns' types would decode
# every row's (sessions share their speakers, and a few hundred start and end times).
_AS_STORED = ("speakers", "extras", "starts_at", "ends_at", "modified")
_SESSIONS_AS_STORED = select(*(type_coerce(c, Text).label(c.name) if c.name in _AS_STORED else c for c in sessions.c))


def _load_sessions(conn: Connection, slug: str, writes: RowWrites | None = None) -> list[Session]:
    known: dict[tuple[object, ...], object] = {}
    query = _SESSIONS_AS_STORED.where(sessions.c.conference == slug)
    if writes is None:
        found = conn.execute(query).mappings()
        return [rows.session_from_row(r, known) for r in found]
    # The versions first: a row written by a version committed after them is left out of `rows`.
    _read_versions(conn, slug, writes)
    named, by_row = writes.versions, writes.rows
    found = conn.execute(query).mappings()
    loaded = []
    for r in found:
        session = rows.session_from_row(r, known)
        if r["version"] in named:
            by_row[session.id] = r["version"]
        loaded.append(session)
    return loaded


def _read_versions(conn: Connection, slug: str, writes: RowWrites) -> None:
    writes.versions.update(
        (int(r.number), f"{schema.HEAD} {r.id} {r.number} {rows.from_db_time(r.created).isoformat()}")
        for r in conn.execute(
            select(versions.c.id, versions.c.number, versions.c.created).where(versions.c.conference == slug)
        )
    )


def _latest_version(conn: Connection, slug: str) -> int:
    found = conn.execute(select(func.max(versions.c.number)).where(versions.c.conference == slug)).scalar()
    return int(found or 0)


def _stored_conference(conn: Connection, slug: str) -> dict[str, Any] | None:
    """The conference's row as stored, comparable with `rows.conference_row`."""
    row = conn.execute(select(conferences).where(conferences.c.slug == slug)).mappings().first()
    return None if row is None else dict(row)


def _write_sessions(conn: Connection, written: list[dict[str, Any]], existing: set[str], version: int) -> None:
    # Two executemany statements, not one statement per row: building and compiling 20,000
    # statements took most of a large ingest's time, all of it under the write lock.
    values = [{**row, "version": version} for row in written]
    inserts = [v for v in values if v["id"] not in existing]
    updates = [{"k_conference": v["conference"], "k_id": v["id"], **v} for v in values if v["id"] in existing]
    if inserts:
        conn.execute(sessions.insert(), inserts)
    if updates:
        key = (sessions.c.conference == bindparam("k_conference")) & (sessions.c.id == bindparam("k_id"))
        conn.execute(update(sessions).where(key), updates)
