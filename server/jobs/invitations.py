"""Invitation jobs: bring one address up to date with its picks and the schedule, by e-mail.

- `send_invitations(id)`: claim invitation `id` (a lease, as CalDAV syncs hold theirs), work out
  what it lacks (server.mail.plan: REQUESTs for new or changed picked sessions, CANCELs for
  withdrawn or unpicked ones, nothing for the rest) and send it, noting each message as it goes
  so a worker killed midway resends nothing. Queued when an address is confirmed, when its
  picks are saved, and when a version of its conference is committed (server.jobs.triggers,
  Jobs.queue_wanted), so a change reaches the attendee's mailbox within seconds.
- `sweep_invitations()`: every minute, queues every invitation still due whose job was lost
  (or never queued: an ingest into a store whose processes could not queue), and drops those
  of expired pick sets and confirmations never given.

A job that finds the address's domain over its rate (server.mail.pace) comes back when the
domain has room; a 4xx or a relay out of reach is retried after a jittered exponential backoff
(server.jobs.backoff); a 5xx for the address stops its invitations for good, the state saying
why. Log lines name the invitation by id, never the address or the pick token.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from feeds.model import Conference, Schedule, Session
from server.errors import ServerError
from server.jobs.backoff import DEFAULT_BACKOFF, Backoff
from server.mail.address import parse_address
from server.mail.itip import Method
from server.mail.messages import Links, invitation
from server.mail.pace import DomainPace
from server.mail.plan import Sent, plan
from server.mail.settings import MailSettings, mail_settings
from server.mail.smtp import PermanentFailure, Relay, TemporaryFailure
from server.store import Store
from server.store.invitations import Invitation, Invitations, InvitationState, SentEvent
from server.store.picks import PickStore

if TYPE_CHECKING:
    from huey import Huey

log = logging.getLogger("confcal.jobs.invitations")

# Renewed while a job sends (each message is bounded by the relay's timeout): this is how long a
# dead worker holds an address.
LEASE = timedelta(minutes=2)
STOP_PATH = "api/invitations/stop"
# A job queued this long ago and not run was lost (its worker died) or waits behind a burst:
# longer than the burst of a schedule change to a thousand addresses takes, so the sweep does
# not queue each of them a second time.
OVERDUE_AFTER = timedelta(minutes=2)


def stop_url(site_url: str, stop_token: str) -> str:
    """The stop link of an invitation (server.web.invitations_api answers it)."""
    return f"{site_url.rstrip('/')}/{STOP_PATH}/{stop_token}"


@dataclass(frozen=True)
class Again:
    invitation: int
    at: datetime


@dataclass(frozen=True)
class Sender:
    """What the jobs send with: the settings, their relay and the per-domain pace."""

    settings: MailSettings
    relay: Relay
    pace: DomainPace
    backoff: Backoff = DEFAULT_BACKOFF
    draw: Callable[[], float] = field(default=random.random)

    @classmethod
    def of(cls, settings: MailSettings) -> Sender:
        return cls(settings, Relay(settings), DomainPace(settings.per_domain))


class Schedules:
    """The live schedule of a conference at its latest version, read once per version for all
    the jobs of one process (a schedule change queues one job per address)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._held: dict[str, tuple[int, Schedule | None]] = {}
        self._lock = threading.Lock()

    def at(self, conference: str, version: int) -> Schedule | None:
        with self._lock:
            found = self._held.get(conference)
        if found is not None and found[0] == version:
            return found[1]
        schedule = self.store.live(conference)
        with self._lock:
            self._held[conference] = (version, schedule)
        return schedule


def run_invitations(
    store: Store,
    table: Invitations,
    invitation_id: int,
    sender: Sender,
    clock: Callable[[], datetime],
    schedules: Schedules,
    lease: timedelta = LEASE,
    monotonic: Callable[[], float] = time.monotonic,
) -> Again | None:
    """Claim, bring up to date and release invitation `invitation_id`; what to queue next.
    `monotonic`: the seconds the domain's pace is earned back by."""
    owner = f"{os.uname().nodename}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
    claimed = table.claim(invitation_id, owner, clock(), lease)
    if claimed is None:
        return None
    held_until = clock() + lease
    pickset = PickStore(store.engine).get(claimed.pick_token)
    version = table.latest_version(claimed.conference)
    schedule = schedules.at(claimed.conference, version)
    stored = table.address(invitation_id)
    if pickset is None or schedule is None or stored is None:
        # The set expired (its invitation is dropped by the sweep) or the conference was removed.
        table.finish(invitation_id, owner, clock())
        return None
    address = parse_address(stored)
    sent = {
        key: Sent(e.session, e.uid, e.sequence, e.revision, e.cancelled) for key, e in table.sent(invitation_id).items()
    }
    links = Links(stop=stop_url(claimed.site_url, claimed.stop_token), schedule=claimed.site_url.rstrip("/") + "/")
    started, count = time.monotonic(), 0
    for item in plan(schedule, pickset.sessions, sent):
        wait = sender.pace.take(address.domain, monotonic())
        if wait is not None:
            at = clock() + timedelta(seconds=wait)
            table.finish(invitation_id, owner, clock(), next_attempt_at=at)
            return Again(invitation_id, at)
        if clock() > held_until - lease / 2:
            if table.claim(invitation_id, owner, clock(), lease) is None:
                return None  # taken over: what was sent is recorded, the new holder sends the rest
            held_until = clock() + lease
        session = item.session
        last = sent.get(session.id)
        uid = last.uid if last is not None else table.uid(str(address), claimed.conference, session.id)
        now = clock()
        message = invitation(
            item.method,
            schedule.conference,
            session,
            uid=uid,
            sequence=item.sequence,
            sender=sender.settings.sender,
            to=address,
            links=links,
            now=now,
            base_url=claimed.site_url,
        )
        try:
            sender.relay.send(message, address)
        except PermanentFailure as exc:
            _stopped(table, claimed, owner, clock(), str(exc), exc.code)
            return None
        except TemporaryFailure as exc:
            return _later(table, claimed, owner, clock(), str(exc), sender)
        cancelled = item.method is Method.CANCEL
        if not table.record(
            invitation_id, owner, SentEvent(session.id, uid, item.sequence, session.revision, cancelled, now)
        ):
            return None
        count += 1
    done = table.finish(
        invitation_id,
        owner,
        clock(),
        synced_version=version,
        synced_picks=pickset.updated,
        attempts=0,
        next_attempt_at=None,
        last_error=None,
    )
    if count:
        log.info("invitation %d: %d messages in %.2f s", invitation_id, count, time.monotonic() - started)
    # Picks saved or a version committed while this ran: their own job may have found the lease.
    if done and table.due(token=claimed.pick_token):
        return Again(invitation_id, clock())
    return None


def _stopped(table: Invitations, claimed: Invitation, owner: str, now: datetime, error: str, code: int | None) -> None:
    table.finish(
        claimed.id,
        owner,
        now,
        state=InvitationState.FAILED.value,
        last_error=error,
        attempts=0,
        next_attempt_at=None,
    )
    log.warning("invitation %d: refused for good (SMTP %s); stopped", claimed.id, code)


def _later(
    table: Invitations, claimed: Invitation, owner: str, now: datetime, error: str, sender: Sender
) -> Again | None:
    failures = claimed.attempts + 1
    if sender.backoff.gives_up(failures):
        # Stopped until the next change, as a CalDAV sync that gives up: marked up to date.
        table.finish(
            claimed.id,
            owner,
            now,
            last_error=f"{error} (gave up after {failures} attempts)",
            attempts=0,
            next_attempt_at=None,
            synced_version=table.latest_version(claimed.conference),
            synced_picks=now,
        )
        log.warning("invitation %d: gave up after %d attempts", claimed.id, failures)
        return None
    at = now + sender.backoff.delay(failures, None, sender.draw)
    table.finish(claimed.id, owner, now, last_error=error, attempts=failures, next_attempt_at=at)
    log.warning(
        "invitation %d: not sent (attempt %d), next at %s", claimed.id, failures, at.isoformat(timespec="seconds")
    )
    return Again(claimed.id, at)


class InvitationJobs:
    """The invitation tasks of one store on one queue (registered by server.jobs.tasks.Jobs).
    The relay is set up from the environment (server.mail.settings) with the first job, or
    given as `sender`; a process without mail settings queues jobs but never sends."""

    def __init__(self, store: Store, queue: Huey, clock: Callable[[], datetime], sender: Sender | None = None) -> None:
        # Huey loads with the queue, not with this module: the web processes import the sending
        # functions below for a stop, and start without the job queue (server.web.factory).
        from huey import crontab

        self.store, self._clock = store, clock
        self._sender = sender
        self._sender_lock = threading.Lock()
        self._table: Invitations | None = None
        self._schedules = Schedules(store)

        @queue.task(name="send_invitations")  # type: ignore[untyped-decorator]
        def send_invitations(invitation_id: int) -> None:
            self.run(invitation_id)

        @queue.periodic_task(crontab(), name="sweep_invitations")  # type: ignore[untyped-decorator]
        def sweep_invitations() -> None:
            self.sweep()

        self._task: Any = send_invitations

    @property
    def table(self) -> Invitations:
        if self._table is None:
            self._table = Invitations(self.store.engine)
        return self._table

    @property
    def sender(self) -> Sender | None:
        with self._sender_lock:
            if self._sender is None:
                settings = mail_settings()
                self._sender = None if settings is None else Sender.of(settings)
            return self._sender

    def queue(self, invitation_id: int, at: datetime | None = None) -> None:
        if at is None or at <= self._clock():
            self._task(invitation_id)
        else:
            self._task.schedule(args=(invitation_id,), eta=at)

    def queue_due(self, *, conference: str | None = None, token: str | None = None) -> int:
        """Queue a job for every invitation that has something to catch up on (of `conference`,
        or of the pick set `token`, when given) and no job on its way; how many."""
        found = self.table.to_queue(self.table.due(conference=conference, token=token), self._clock())
        for invitation_id in found:
            self.queue(invitation_id)
        return len(found)

    def run(self, invitation_id: int) -> None:
        sender = self.sender
        if sender is None:
            log.warning("invitation %d: no mail relay configured in this process (CONFCAL_SMTP_URL)", invitation_id)
            return
        try:
            again = run_invitations(self.store, self.table, invitation_id, sender, self._clock, self._schedules)
        except ServerError as exc:
            # A busy store or a key no longer configured: the lease runs out and the sweep tries
            # again. The class only: the message could come from anywhere.
            log.warning("invitation %d: %s; the sweep tries again", invitation_id, type(exc).__name__)
            return
        if again is not None:
            self.queue(again.invitation, again.at)

    def sweep(self) -> int:
        """Drop what expired, queue what is due and whose job was lost; how many queued."""
        now = self._clock()
        dropped = self.table.drop_orphans() + self.table.drop_expired(now)
        if dropped:
            log.info("dropped %d invitations of expired pick sets or unconfirmed requests", dropped)
        found = self.table.to_queue(self.table.due(overdue=(now, now - OVERDUE_AFTER)), now, lost=True)
        for invitation_id in found:
            log.info("invitation %d has waited too long; queueing it", invitation_id)
            self.queue(invitation_id)
        return len(found)

    def close(self) -> None:
        if self._sender is not None:
            self._sender.relay.close()


class Held(ServerError):
    """A job holds the invitation right now (its lease): try the stop again shortly."""


def cancel_sent(
    table: Invitations,
    invitation_id: int,
    sender: Sender,
    conference: Conference,
    session_of: Callable[[str], Session | None],
    clock: Callable[[], datetime],
    lease: timedelta = LEASE,
) -> int:
    """Before a stop that asked for it: a CANCEL for every event sent and not cancelled since,
    under the invitation's lease so no job sends meanwhile; how many were sent. Only an active
    invitation has a working address (a failed one was refused for good): others send none.
    Raises Held when a job holds it, SendFailed when the relay refuses (the stop should wait)."""
    found = table.get(invitation_id)
    if found is None or found.state is not InvitationState.ACTIVE:
        return 0
    owner = f"stop-{uuid.uuid4().hex}"
    claimed = table.claim(invitation_id, owner, clock(), lease)
    stored = table.address(invitation_id)
    if claimed is None or stored is None:
        raise Held(f"invitation {invitation_id} is being sent to")
    address = parse_address(stored)
    links = Links(stop=stop_url(claimed.site_url, claimed.stop_token), schedule=claimed.site_url.rstrip("/") + "/")
    count = 0
    try:
        for event in table.sent(invitation_id).values():
            session = session_of(event.session)
            if event.cancelled or session is None:
                continue
            now = clock()
            sequence = max(session.revision, event.sequence + 1)
            message = invitation(
                Method.CANCEL,
                conference,
                session,
                uid=event.uid,
                sequence=sequence,
                sender=sender.settings.sender,
                to=address,
                links=links,
                now=now,
                base_url=claimed.site_url,
            )
            sender.relay.send(message, address)
            table.record(invitation_id, owner, SentEvent(session.id, event.uid, sequence, session.revision, True, now))
            count += 1
    finally:
        table.finish(invitation_id, owner, clock())
    return count
