"""Who gets a pick set's sessions as e-mail invitations: the `invitations` table, and what was
last sent about each session (`invitation_events`).

The address is kept as a Fernet token (server.crypto, as CalDAV passwords) and only the jobs
and the confirmation ever decrypt it; `address_key`, a keyed HMAC of it, recognises the same
address again without making it readable. The confirmation link's code is kept as its SHA-256
only: the code itself lives in the one message that carried it.

Life cycle: `request` (pending, a code valid CONFIRM_TTL) -> `confirm` (active) -> the jobs
bring the address up to date whenever the set is due (`due`: a newer schedule version of its
conference, or a newer save of its picks), holding a lease while they send (`claim`,
`finish`); a permanent refusal sets it `failed`, with the reason. `stop` deletes it with its
events; so does `drop_orphans` when the pick set expired (server.store.expiry), and so does
`drop_expired` for a confirmation never given.

Nothing here knows SMTP or HTTP. Every write is one short transaction; a locked or unreachable
database raises `StoreBusy`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, and_, delete, func, insert, or_, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import IntegrityError

from server.errors import StoreBusy, StoreError
from server.store import schema
from server.store.busy import read_rows, writing
from server.store.rows import from_db_time, to_db_time
from server.store.tables import invitation_events as events
from server.store.tables import invitations as table
from server.store.tables import picks, versions

if TYPE_CHECKING:
    from server.crypto import Cipher

CONFIRM_TTL = timedelta(hours=24)
# The HMAC purposes (server.crypto.Cipher.digest): one key each, so one digest says nothing
# about another.
ADDRESS_PURPOSE = "confcal invitation address"
UID_PURPOSE = "confcal invitation uid"


class InvitationState(StrEnum):
    PENDING = "pending"  # waiting for the link to be opened; nothing is sent meanwhile
    ACTIVE = "active"  # confirmed: the address gets every change
    FAILED = "failed"  # the address was refused for good (a 5xx): stopped, `last_error` says why


class AlreadyActive(StoreError):
    """The pick set's invitations already go to an address: stop them before naming another."""


@dataclass(frozen=True)
class Invitation:
    """A row without its address (see `Invitations.address`)."""

    id: int
    conference: str
    pick_token: str
    masked: str
    site_url: str
    state: InvitationState
    confirm_expires: datetime | None
    stop_token: str
    created: datetime
    updated: datetime
    confirmed: datetime | None
    last_sent: datetime | None
    requests: int
    cancels: int
    last_error: str | None
    synced_version: int
    synced_picks: datetime | None
    attempts: int
    next_attempt_at: datetime | None
    lease_owner: str | None
    lease_until: datetime | None


@dataclass(frozen=True)
class SentEvent:
    session: str
    uid: str
    sequence: int
    revision: int
    cancelled: bool
    sent: datetime


def code_key(code: str) -> str:
    return hashlib.sha256(code.encode("ascii", "replace")).hexdigest()


class Invitations:
    """The invitations in `engine`'s database. `cipher` gives the key (default: server.crypto's
    lookup for this store), asked for only when an address is written or read."""

    def __init__(self, engine: Engine, cipher: Callable[[], Cipher] | None = None) -> None:
        self.engine = engine
        self._cipher_source = cipher
        self._cipher: Cipher | None = None
        schema.ensure(engine)

    def cipher(self) -> Cipher:
        if self._cipher is None:
            # cryptography loads with the first address, not with this module: `confcal ingest`
            # reads `due` and nothing else.
            from server.crypto import key_for

            self._cipher = self._cipher_source() if self._cipher_source else key_for(self.engine)
        return self._cipher

    def address_key(self, address: str) -> str:
        """The keyed HMAC the address is recognised by (rate limits count per address by it)."""
        return self.cipher().digest(ADDRESS_PURPOSE, address.lower())

    def uid(self, address: str, conference: str, session: str) -> str:
        """The invitation's UID for one address and session: the same whenever that address is
        sent that session (a calendar that kept an event from an earlier subscription gets it
        updated, not doubled), unlike the feeds' UIDs, and says nothing of the address."""
        digest = self.cipher().digest(UID_PURPOSE, f"{address.lower()}\n{conference}\n{session}")
        return f"{digest[:32]}@invite.confcal"

    # --- asking and confirming ------------------------------------------------------------------

    def request(
        self, conference: str, token: str, address: str, site_url: str, now: datetime
    ) -> tuple[Invitation, str]:
        """Ask for invitations of pick set `token` to `address`: pending, with a new confirmation
        code (returned, to be sent; only its hash is kept). Replaces a pending or failed request
        of the set; AlreadyActive if the set's invitations already go out."""
        from server.crypto import Password

        cipher = self.cipher()
        code = secrets.token_urlsafe(24)
        stamp = to_db_time(now)
        values: dict[str, Any] = {
            "address": cipher.encrypt(Password(address)),
            "address_key": self.address_key(address),
            "site_url": site_url,
            "state": InvitationState.PENDING.value,
            "confirm_key": code_key(code),
            "confirm_expires": to_db_time(now + CONFIRM_TTL),
            "stop_token": secrets.token_urlsafe(24),
            "updated": stamp,
            "confirmed": None,
            "last_error": None,
            "attempts": 0,
            "next_attempt_at": None,
            # Due again once confirmed: the first job compares the picks with what was sent.
            "synced_version": 0,
            "synced_picks": None,
        }
        try:
            with self._writing() as conn:
                found = conn.execute(
                    select(table.c.id, table.c.state, table.c.address_key).where(table.c.pick_token == token)
                ).first()
                if found is not None and found.state == InvitationState.ACTIVE.value:
                    raise AlreadyActive("invitations of these picks already go to an address; stop them first")
                if found is not None and found.address_key != values["address_key"]:
                    # Another address: what the last one was sent means nothing to it. The same
                    # address again keeps it, so SEQUENCE goes on rising for the events it holds.
                    conn.execute(delete(events).where(events.c.invitation == found.id))
                if found is not None:
                    conn.execute(update(table).where(table.c.id == found.id).values(**values))
                else:
                    conn.execute(
                        insert(table).values(
                            conference=conference,
                            pick_token=token,
                            created=stamp,
                            last_sent=None,
                            requests=0,
                            cancels=0,
                            **values,
                        )
                    )
        except IntegrityError:
            raise StoreBusy("these picks were changed at the same moment; try again") from None
        made = self.by_token(token)
        assert made is not None  # written just now
        return made, code

    def confirm(self, code: str, now: datetime) -> Invitation | None:
        """Open the link: the pending invitation whose code this is becomes active (the code is
        spent). None for an unknown, spent or expired code."""
        key = code_key(code)
        with self._writing() as conn:
            done = conn.execute(
                update(table)
                .where(
                    table.c.confirm_key == key,
                    table.c.state == InvitationState.PENDING.value,
                    table.c.confirm_expires > to_db_time(now),
                )
                .values(
                    state=InvitationState.ACTIVE.value,
                    confirm_key=None,
                    confirm_expires=None,
                    confirmed=to_db_time(now),
                    updated=to_db_time(now),
                )
                .returning(table.c.id)
            ).first()
        return None if done is None else self.get(int(done.id))

    # --- reading --------------------------------------------------------------------------------

    def by_token(self, token: str) -> Invitation | None:
        return self._one(table.c.pick_token == token)

    def by_stop(self, stop_token: str) -> Invitation | None:
        return self._one(table.c.stop_token == stop_token)

    def get(self, invitation_id: int) -> Invitation | None:
        return self._one(table.c.id == invitation_id)

    def address(self, invitation_id: int) -> str | None:
        """The address, decrypted (SecretUndecryptable without the key); None if the row is gone."""
        rows = self._read(select(table.c.address).where(table.c.id == invitation_id))
        return None if not rows else self.cipher().decrypt(rows[0][0]).reveal()

    def sent(self, invitation_id: int) -> dict[str, SentEvent]:
        rows = self._read(select(events).where(events.c.invitation == invitation_id))
        return {
            row.session: SentEvent(
                row.session, row.uid, row.sequence, row.revision, bool(row.cancelled), from_db_time(row.sent)
            )
            for row in rows
        }

    def due(
        self,
        *,
        conference: str | None = None,
        token: str | None = None,
        overdue: tuple[datetime, datetime] | None = None,
    ) -> list[int]:
        """Active invitations that have something to catch up on: their conference has a newer
        version, or their set newer picks, than they were last brought up to. With `overdue` =
        (now, waited_since): only those whose job was lost: no job holds them (no lease, or one
        that ran out before `now`) and none was queued for them (`to_queue`), or it was queued, or
        they came out of backoff or pacing, at or before `waited_since`."""
        latest = (
            select(func.coalesce(func.max(versions.c.number), 0))
            .where(versions.c.conference == table.c.conference)
            .scalar_subquery()
        )
        query = (
            select(table.c.id)
            .join(picks, picks.c.token == table.c.pick_token)
            .where(
                table.c.state == InvitationState.ACTIVE.value,
                or_(
                    table.c.synced_picks.is_(None),
                    table.c.synced_picks < picks.c.updated,
                    table.c.synced_version < latest,
                ),
            )
        )
        if conference is not None:
            query = query.where(table.c.conference == conference)
        if token is not None:
            query = query.where(table.c.pick_token == token)
        if overdue is not None:
            now, waited_since = (to_db_time(moment) for moment in overdue)
            query = query.where(
                or_(table.c.lease_until.is_(None), table.c.lease_until < now),
                or_(table.c.next_attempt_at.is_(None), table.c.next_attempt_at <= waited_since),
            )
        return [int(row.id) for row in self._read(query.order_by(table.c.id))]

    def to_queue(self, ids: list[int], now: datetime, *, lost: bool = False) -> list[int]:
        """Of `ids`, those no job is on its way for (`next_attempt_at` unset: none queued, none
        waiting out a backoff or its domain's pace), now marked queued at `now`; the caller queues
        a job for each. A job finds what changed when it runs, so one on its way is enough, and a
        burst of changes queues one job per address. `lost`: the sweep's ids, whose job was lost,
        are all marked and returned."""
        if not ids:
            return []
        stamp = to_db_time(now)
        marking = update(table).where(table.c.id.in_(ids))
        if not lost:
            marking = marking.where(table.c.next_attempt_at.is_(None))
        with self._writing() as conn:
            marked = conn.execute(marking.values(next_attempt_at=stamp).returning(table.c.id))
            return sorted(int(row.id) for row in marked)

    def latest_version(self, conference: str) -> int:
        query = select(func.coalesce(func.max(versions.c.number), 0)).where(versions.c.conference == conference)
        return int(self._read(query)[0][0])

    # --- sending --------------------------------------------------------------------------------

    def claim(self, invitation_id: int, owner: str, now: datetime, lease: timedelta) -> Invitation | None:
        """Hold invitation `invitation_id` for `owner` until now + lease, if it is active (only
        active ones are sent to), held by no live lease of another owner (the same owner renews)
        and out of backoff or pacing. None otherwise."""
        stamp = to_db_time(now)
        with self._writing() as conn:
            taken = conn.execute(
                update(table)
                .where(
                    table.c.id == invitation_id,
                    table.c.state == InvitationState.ACTIVE.value,
                    or_(table.c.lease_until.is_(None), table.c.lease_until < stamp, table.c.lease_owner == owner),
                    or_(table.c.next_attempt_at.is_(None), table.c.next_attempt_at <= stamp),
                )
                .values(lease_owner=owner, lease_until=to_db_time(now + lease))
            ).rowcount
        return self.get(invitation_id) if taken else None

    def record(self, invitation_id: int, owner: str, event: SentEvent) -> bool:
        """One message went out: note it at once, so a job that dies next does not send it again.
        False when the lease was lost (the row is no longer this job's)."""
        counter = table.c.cancels if event.cancelled else table.c.requests
        with self._writing() as conn:
            held = conn.execute(
                update(table)
                .where(table.c.id == invitation_id, table.c.lease_owner == owner)
                .values({counter: counter + 1, "last_sent": to_db_time(event.sent)})
            ).rowcount
            if not held:
                return False
            conn.execute(delete(events).where(events.c.invitation == invitation_id, events.c.session == event.session))
            conn.execute(
                insert(events).values(
                    invitation=invitation_id,
                    session=event.session,
                    uid=event.uid,
                    sequence=event.sequence,
                    revision=event.revision,
                    cancelled=event.cancelled,
                    sent=to_db_time(event.sent),
                )
            )
        return True

    def finish(self, invitation_id: int, owner: str, now: datetime, **values: Any) -> bool:
        """Release the lease, writing `values` (synced_version, synced_picks, attempts,
        next_attempt_at, last_error, state); False if the lease was lost."""
        for name in ("synced_picks", "next_attempt_at"):
            if isinstance(values.get(name), datetime):
                values[name] = to_db_time(values[name])
        with self._writing() as conn:
            done = conn.execute(
                update(table)
                .where(table.c.id == invitation_id, table.c.lease_owner == owner)
                .values(lease_owner=None, lease_until=None, updated=to_db_time(now), **values)
            ).rowcount
        return bool(done)

    # --- stopping -------------------------------------------------------------------------------

    def stop(self, invitation_id: int) -> bool:
        """Delete the invitation, its address and what was sent. False if it was gone."""
        with self._writing() as conn:
            conn.execute(delete(events).where(events.c.invitation == invitation_id))
            gone = conn.execute(delete(table).where(table.c.id == invitation_id)).rowcount
        return bool(gone)

    def drop_orphans(self) -> int:
        """Delete the invitations whose pick set no longer exists (expired: server.store.expiry)."""
        orphan = ~select(picks.c.token).where(picks.c.token == table.c.pick_token).exists()
        return self._drop(orphan)

    def drop_expired(self, now: datetime) -> int:
        """Delete the requests whose confirmation was never given in time."""
        return self._drop(
            and_(table.c.state == InvitationState.PENDING.value, table.c.confirm_expires <= to_db_time(now))
        )

    def rotate_keys(self) -> int:
        """Re-encrypt every stored address with the cipher's first key, and recompute its HMAC
        under that key; how many rows."""
        cipher = self.cipher()
        with self._writing() as conn:
            rows = conn.execute(select(table.c.id, table.c.address)).all()
            for row_id, sealed in rows:
                address = cipher.decrypt(sealed).reveal()
                conn.execute(
                    update(table)
                    .where(table.c.id == row_id)
                    .values(address=cipher.rotate(sealed), address_key=self.address_key(address))
                )
        return len(rows)

    # --- internals ------------------------------------------------------------------------------

    def _drop(self, where: Any) -> int:
        with self._writing() as conn:
            ids = [int(row.id) for row in conn.execute(select(table.c.id).where(where))]
            if ids:
                conn.execute(delete(events).where(events.c.invitation.in_(ids)))
                conn.execute(delete(table).where(table.c.id.in_(ids)))
        return len(ids)

    def _one(self, where: Any) -> Invitation | None:
        rows = self._read(select(table).where(where))
        return self._invitation(rows[0]._mapping) if rows else None

    def _read(self, query: Any) -> list[Any]:
        return read_rows(self.engine, query, "invitations")

    def _writing(self) -> AbstractContextManager[Connection]:
        return writing(self.engine, "invitations")

    def _invitation(self, row: RowMapping) -> Invitation:
        address = self.cipher().decrypt(row["address"]).reveal()
        local, _, domain = address.rpartition("@")
        return Invitation(
            id=row["id"],
            conference=row["conference"],
            pick_token=row["pick_token"],
            # What the API and the page show; the address itself is never stored in clear.
            masked=f"{local[:1]}***@{domain}",
            site_url=row["site_url"],
            state=InvitationState(row["state"]),
            confirm_expires=_time(row["confirm_expires"]),
            stop_token=row["stop_token"],
            created=from_db_time(row["created"]),
            updated=from_db_time(row["updated"]),
            confirmed=_time(row["confirmed"]),
            last_sent=_time(row["last_sent"]),
            requests=row["requests"],
            cancels=row["cancels"],
            last_error=row["last_error"],
            synced_version=row["synced_version"],
            synced_picks=_time(row["synced_picks"]),
            attempts=row["attempts"],
            next_attempt_at=_time(row["next_attempt_at"]),
            lease_owner=row["lease_owner"],
            lease_until=_time(row["lease_until"]),
        )


def _time(value: datetime | None) -> datetime | None:
    return None if value is None else from_db_time(value)
