"""The store's schema: every table of the store's database, on one MetaData (SQLite and PostgreSQL).

This is the schema the code reads and writes; the database gets it through the Alembic revisions
in server/store/migrations/versions/ (server.store.schema applies them). A change here needs a new
revision there: see "Changing the schema" in docs/architecture.md.

Everything is keyed by conference slug so several conferences can share one store. Every instant
is an `Instant` column (below): aware UTC in Python on both databases. Speakers are a JSON column
on the session: they are shown as part of a session and never queried on their own here, and
`JSON` maps to a native type on PostgreSQL.

Not here: the job queue's `job_*` tables, which Huey defines and creates (server.jobs.queue).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Date,
    DateTime,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect


class Instant(TypeDecorator[datetime]):
    """A moment in time: written and read as a timezone-aware UTC datetime on every database.

    One convention since revision 0002 (before it, PostgreSQL had `timestamp without time zone`
    for most columns and `with time zone` for one, and the code converted by hand):
    - PostgreSQL: `timestamp with time zone`, an instant whatever the session's TimeZone;
    - SQLite, which has no time type: SQLAlchemy's fixed-width text of the UTC wall time
      (`2026-03-01 09:00:00.123456`), which sorts and compares as the instants do, so range
      queries (`lease_until < :now`) mean the same on both.
    Not epoch integers: both databases would then show numbers to anyone reading the tables, and
    SQLite's stored text was already this format, so only PostgreSQL's columns had to change.
    A naive value is taken as UTC (the code's old convention); a value in another zone is
    converted, never stored as its wall time (SQLite's DATETIME alone would drop the offset).
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


metadata = MetaData()

conferences = Table(
    "schedule_conference",
    metadata,
    Column("slug", String(200), primary_key=True),
    Column("name", Text, nullable=False),
    Column("timezone", String(64), nullable=False),
    Column("start_date", Date, nullable=False),
    Column("end_date", Date, nullable=False),
    Column("venue", Text),
    Column("city", Text),
    Column("source_url", Text),
    # When one conference day turns over ("HH:MM:SS" in the conference's zone): feeds.model.Conference.
    Column("day_change", String(8), nullable=False, server_default="00:00:00"),
)

# One row per accepted ingest or rollback that changed something. `number` is the version as
# people see it: each conference counts its own (1, 2, 3), so one conference's changelog has no
# gaps for another's ingests; every `version` column elsewhere holds this number. `id` is the
# store's own order, global and increasing, never reused (AUTOINCREMENT on SQLite, a sequence on
# PostgreSQL): its maximum is what a server polls for "anything new", which must move even when
# a removed conference's versions and a new one's land between two polls.
versions = Table(
    "schedule_version",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("conference", String(200), nullable=False, index=True),
    Column("number", Integer, nullable=False),
    Column("created", Instant, nullable=False),
    Column("diff", JSON, nullable=False),
    Column("counts", JSON, nullable=False),
    UniqueConstraint("conference", "number", name="uq_schedule_version_number"),
    sqlite_autoincrement=True,
)

# What each version published (server/store/history.py): one row per (conference, version), the
# session rows that version wrote as zlib-compressed JSON. Encoded before the write transaction,
# so recording a version adds one small INSERT under the write lock, however many rows it wrote.
version_content = Table(
    "schedule_version_content",
    metadata,
    Column("conference", String(200), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("sessions", LargeBinary, nullable=False),
)

sessions = Table(
    "schedule_session",
    metadata,
    Column("conference", String(200), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("title", Text, nullable=False),
    Column("kind", String(100), nullable=False),
    Column("starts_at", Instant, nullable=False),
    Column("ends_at", Instant, nullable=False),
    Column("room_name", Text),
    Column("room_slug", String(200)),
    Column("track_name", Text),
    Column("track_slug", String(200)),
    Column("level_name", Text),
    Column("level_slug", String(200)),
    Column("description", Text, nullable=False),
    Column("speakers", JSON, nullable=False),
    Column("slides", Boolean, nullable=False),
    Column("url", Text),
    Column("status", String(16), nullable=False),
    Column("revision", Integer, nullable=False),
    Column("modified", Instant),
    # The version that last wrote this row (content change, cancellation or restore).
    Column("version", Integer, nullable=False),
    # The source's own id for the session (iCalendar UID, frab guid, Sched event_key), matched first
    # by feeds.identity; NULL for sources without ids.
    Column("source_id", Text),
    # What else the source carries (feeds.model.Session): {"links": [{url, title, kind}], "language",
    # "subtitle", "do_not_record"}; NULL for none, and for rows written before it existed.
    Column("extras", JSON),
    # A server holding a conference reads only the rows written after the version it holds
    # (Store.read_since): without this index that query reads every row of every conference.
    Index("ix_schedule_session_conference_version", "conference", "version"),
    # Each conference's confirmed sessions are counted by every build and as a server starts
    # (Store.conferences): with this index, from it alone, not from every row.
    Index("ix_schedule_session_conference_status", "conference", "status"),
)

# Personal pick sets (server.store.picks). No accounts: the token is the only key and secret.
# The ids are one JSON column: a set is always read and written whole.
picks = Table(
    "personal_picks",
    metadata,
    Column("token", String(64), primary_key=True),
    Column("conference", String(200), nullable=False),
    Column("sessions", JSON, nullable=False),
    Column("created", Instant, nullable=False),
    Column("updated", Instant, nullable=False),
    # Day the set was last read through the server (null: not since it last changed); with
    # `updated` it decides when a set expires (server.store.expiry).
    Column("last_access", Instant, nullable=True),
)


# Every create, replace and purge of a pick set, numbered in commit order: each write takes its
# numbers from the counter's one row, whose row lock (PostgreSQL) or the database's write lock
# (SQLite) orders the writers, so the numbers are dense and a number is visible only once every
# smaller one is. A server process then re-reads only the sets changed since the number it last
# saw (server.store.picks.PickStore.changes_since, server.snapshot.pick_cache). Pruned after a day.
pick_changes = Table(
    "pick_changes",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("token", String(64), nullable=False),
    Column("at", Instant, nullable=False),
)
pick_change_counter = Table(
    "pick_change_counter",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("seq", Integer, nullable=False),
)


# --- sources the server keeps fresh (server/store/sources.py) ---------------------------------
# A source is the set of URLs that together make one snapshot; it is read and written whole, so
# the URLs and their validators are JSON lists, index for index. `generation` counts finished
# refreshes: a refresh job names the generation it is for, so duplicate jobs for one run (a job
# queue may deliver twice after a crash) find it gone and do nothing. `lease_until` is held while
# one process refreshes the source; a process that dies mid-refresh frees it by expiring.
sources = Table(
    "schedule_source",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("conference", String(200)),  # None: the conference the content names
    Column("urls", JSON, nullable=False),
    Column("tz", String(64)),
    Column("format", String(64)),
    Column("interval", Integer, nullable=False),  # seconds
    Column("allow_private", Boolean, nullable=False),
    Column("validators", JSON, nullable=False),  # [[etag, last_modified], ...] per URL
    Column("digest", String(64)),  # sha256 of the bodies last applied
    Column("last_fetch", Instant),
    Column("result", String(16)),  # ok | unchanged | refused | error
    Column("message", Text),
    Column("next_run", Instant, nullable=False),
    Column("generation", Integer, nullable=False),
    Column("lease_until", Instant),
    Column("created", Instant, nullable=False),
)

# What a source's host asks for (Basic auth, an API key header), as one Fernet token per source
# (server.crypto, as CalDAV passwords): the source's URLs never hold userinfo. A table of its own,
# so a source without a login has no row and the sources table keeps its shape.
source_credentials = Table(
    "schedule_source_credentials",
    metadata,
    Column("source_id", Integer, primary_key=True, autoincrement=False),
    Column("sealed", Text, nullable=False),
)

# --- what the CalDAV pusher wrote where (server/caldav/state.py) -------------------------------
# Keyed by (calendar URL, UID) and read per scope (the conference): a push of conference B must
# not delete the events a push of conference A put into the same calendar.
sync_state = Table(
    "caldav_sync_state",
    metadata,
    Column("calendar_url", String, primary_key=True),
    Column("uid", String, primary_key=True),
    Column("scope", String, nullable=False, server_default=""),
    Column("name", String, nullable=False),
    Column("etag", String, nullable=False),
    Column("revision", Integer, nullable=False),
    Column("digest", String, nullable=False),
    Column("pushed_at", Instant, nullable=False),
)

# --- one CalDAV sync per calendar at a time (server/caldav/lock.py) -----------------------------
# A lease per calendar URL: `owner` holds it until `until`; NULL owner means free.
calendar_locks = Table(
    "caldav_calendar_locks",
    metadata,
    Column("calendar_url", String, primary_key=True),
    Column("owner", String, nullable=True),
    Column("until", Instant, nullable=True),
)

# --- calendars the server keeps in sync with a pick set (server/store/caldav_targets.py) -------
# One row per pick set at most (the API is `api/picks/{token}/caldav`). The pick set is named by
# its token, its only key (personal_picks has no other id); no foreign key, so a purged set leaves
# an orphan the store drops (`CaldavTargets.drop_orphans`) rather than a PostgreSQL error.
# `password` holds a Fernet token (server.crypto), never the password. A sync is wanted while
# `wanted_generation` > `synced_generation`: every reason for one (attach, picks changed, new
# schedule version) bumps `wanted_generation`; a sync records the generation it started from.
# `lease_owner`/`lease_until`: one sync per calendar at a time, across processes.
caldav_targets = Table(
    "caldav_targets",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("conference", String(200), nullable=False),
    Column("pick_token", String(64), nullable=False, unique=True),
    # Normalised (no userinfo, ends in "/"): two pick sets of one conference syncing into one
    # calendar would delete each other's events, so (conference, url) is unique too.
    Column("url", String(2000), nullable=False),
    Column("username", Text, nullable=False),
    Column("password", Text, nullable=False),
    Column("state", String(32), nullable=False),
    Column("created", Instant, nullable=False),
    Column("updated", Instant, nullable=False),
    Column("last_sync", Instant),
    Column("last_result", String(16)),  # ok | error
    Column("counts", JSON),  # {"created": n, "updated": n, "deleted": n, "unchanged": n, "conflicts": n}
    Column("last_error", Text),  # "ErrorClass: message", never credentials
    Column("wanted_generation", Integer, nullable=False),
    Column("synced_generation", Integer, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", Instant),
    Column("lease_owner", String(200)),
    Column("lease_until", Instant),
    UniqueConstraint("conference", "url", name="uq_caldav_targets_calendar"),
)

# --- schedule changes sent as e-mail invitations (server/store/invitations.py) -----------------
# One row per pick set at most (the API is `api/picks/{token}/invitations`); no foreign key, as
# for caldav_targets: a purged set leaves an orphan the jobs drop. `address` holds a Fernet token
# (server.crypto), never the address; `address_key` a keyed HMAC of it (Cipher.digest), so the
# same address is recognised without being readable. `confirm_key` is the SHA-256 of the
# confirmation link's code (the code itself is only in the message); `stop_token` is the stop
# link's, sent in every message. The set is due while `synced_version` is below its
# conference's latest version number or `synced_picks` below the set's `updated`.
invitations = Table(
    "invitations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("conference", String(200), nullable=False),
    Column("pick_token", String(64), nullable=False, unique=True),
    Column("address", Text, nullable=False),
    Column("address_key", String(64), nullable=False, index=True),
    Column("site_url", Text, nullable=False),  # the conference's links as the attendee saw them
    Column("state", String(16), nullable=False),  # pending | active | failed
    Column("confirm_key", String(64), unique=True),
    Column("confirm_expires", Instant),
    Column("stop_token", String(64), nullable=False, unique=True),
    Column("created", Instant, nullable=False),
    Column("updated", Instant, nullable=False),
    Column("confirmed", Instant),
    Column("last_sent", Instant),
    Column("requests", Integer, nullable=False),
    Column("cancels", Integer, nullable=False),
    Column("last_error", Text),  # the relay's words with the address taken out
    Column("synced_version", Integer, nullable=False),
    Column("synced_picks", Instant),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", Instant),
    Column("lease_owner", String(200)),
    Column("lease_until", Instant),
)
# What was last sent about each session to an invitation's address: its own UID (stable for
# the address and session), the SEQUENCE and the session revision it showed, and whether it was
# a CANCEL.
invitation_events = Table(
    "invitation_events",
    metadata,
    Column("invitation", Integer, primary_key=True, autoincrement=False),
    Column("session", String(64), primary_key=True),
    Column("uid", String(200), nullable=False),
    Column("sequence", Integer, nullable=False),
    Column("revision", Integer, nullable=False),
    Column("cancelled", Boolean, nullable=False),
    Column("sent", Instant, nullable=False),
)
