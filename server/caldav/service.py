"""The push service: one way to bring a CalDAV calendar in line with a set of sessions, used by
`confcal push` and by the server's sync jobs alike.

API (all blocking; run them in a worker thread from async code)::

    from server.caldav.service import sync, preview, probe, remove, SyncResult
    from server.caldav.target import Target, PickToken, SessionIds, SyncOptions
    from server.crypto import Password

    target = Target(url, username, Password(secret), id="42")    # id: the name logs use
    options = SyncOptions(overwrite=False, retry=DEFAULT_RETRY, allow_private=False)

    probe(target, options) -> None
        Connects once: credentials accepted and the URL is a calendar collection. For the attach
        API, before storing a target. Raises (server.caldav.errors) BadCalendarUrl,
        AddressNotAllowed, AuthenticationFailed, AccessDenied, CalendarNotFound, NotACalendar,
        ServerUnreachable, ServerFailed. `options.retry` applies (pass RetryPolicy(attempts=1)
        for an immediate answer).

    sync(store, target, PickToken(token) | SessionIds(ids), *, conference=None, options=...,
         cache=None, base_url=None, progress=None, waiting=None) -> SyncResult
        Looks the sessions up (a pick token's own conference, else `conference`, else the store's
        default), renders them through `cache` (feeds.ical.EventCache; pass the served snapshot's
        cache to share renders with the feeds, or leave None for this process's own), then lists
        the calendar, plans against the sync state and writes. At most one sync per calendar URL
        runs at a time across processes (server.caldav.lock); a second one waits for the first
        (up to `options.lock_wait` seconds, then CalendarBusy), and `waiting` is told once, in one
        line, who holds the calendar and until when.
        Raises the probe's errors plus PicksNotFound, UnknownSession, PicksOfAnotherConference,
        CalendarBusy, LeaseLost,
        StoreError (no such schedule), and ServerUnreachable/ServerFailed when the server fails
        mid-run (the state stays consistent; a later run resumes). Conflicts (owner edits) are
        not errors: they are counted in the result and left alone unless `options.overwrite`.

    preview(...same arguments as sync, no progress...) -> Preview
        The plan without writing anything (`confcal push --dry-run`).

    remove(store, target, *, conference, options=...) -> SyncResult
        Deletes the events confcal created in that calendar for that conference (and nothing
        else; owner-edited ones are conflicts, kept unless `options.overwrite`).

`store` is anything with `engine` (SQLAlchemy Engine of the store's database) and
`live(conference) -> Schedule | None`, i.e. server.store.Store or an adapter over served
snapshots. Every run logs one line on `confcal.caldav` (see `log_sync`): target id, counts,
duration, error class; never a password, an Authorization header or a pick token.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Protocol

from sqlalchemy import Engine

from feeds.ical import EventCache, uid
from feeds.model import Schedule, Session
from feeds.outbound.urls import public_url
from server.caldav.dav import DavStorage, calendar_key, check_url
from server.caldav.errors import PicksNotFound, PicksOfAnotherConference
from server.caldav.events import desired_events, select_sessions
from server.caldav.execute import Summary
from server.caldav.lock import hold_calendar
from server.caldav.plan import Action, DesiredEvent, Keep, uid_of
from server.caldav.retry import with_retry
from server.caldav.state import SyncState
from server.caldav.sync import make_plan, push
from server.caldav.target import PickToken, Selection, SyncOptions, Target
from server.errors import StoreError
from server.store.picks import PickStore
from server.store.sync_counts import SyncCounts, WithCounts

log = logging.getLogger("confcal.caldav")
# A library's logger: silent unless the application configures logging (the CLI prints its own
# one-line error; without this, Python's last-resort handler would print the warning as well).
log.addHandler(logging.NullHandler())

# Renders kept between runs of this process when the caller has no feed cache to share.
_OWN_CACHE = EventCache(max_entries=20_000)


class PushStore(Protocol):
    @property
    def engine(self) -> Engine: ...

    def live(self, conference: str | None = None) -> Schedule | None: ...


@dataclass(frozen=True)
class SyncResult(WithCounts):
    """What one run did. `conflicts` has one line per event left alone: "UID: reason"."""

    target: str
    counts: SyncCounts
    conflicts: tuple[str, ...]
    duration: timedelta
    # The server ignores If-None-Match / If-Match (dav.DavStorage.checks_writes): each object was
    # read and compared before it was changed.
    checked_writes: bool = False


@dataclass(frozen=True)
class Step:
    """Progress of a run: one per change made (unchanged events are not reported)."""

    done: int
    total: int
    outcome: str  # created, updated, deleted, unchanged, conflict
    uid: str
    title: str


@dataclass(frozen=True)
class Preview:
    actions: tuple[Action, ...]
    titles: dict[str, str]  # UID -> session title


@dataclass(frozen=True)
class _Wanted:
    schedule: Schedule
    desired: list[DesiredEvent]
    titles: dict[str, str]


def probe(target: Target, options: SyncOptions = SyncOptions()) -> None:
    """Connect once and check credentials and that the URL is a calendar collection."""
    with_retry(lambda: _connect(target, options), options.retry).close()


def sync(
    store: PushStore,
    target: Target,
    selection: Selection,
    *,
    conference: str | None = None,
    options: SyncOptions = SyncOptions(),
    cache: EventCache | None = None,
    base_url: str | None = None,
    progress: Callable[[Step], None] | None = None,
    waiting: Callable[[str], None] | None = None,
) -> SyncResult:
    started = time.monotonic()
    try:
        wanted = _wanted(store, selection, conference, cache, base_url)
        summary, checked = _run(
            store.engine,
            target,
            wanted.schedule.conference.slug,
            wanted.desired,
            options,
            wanted.titles,
            progress,
            waiting,
        )
    except Exception as exc:
        log_sync(target, None, _since(started), exc)
        raise
    result = _result(target, summary, _since(started), checked)
    log_sync(target, result, result.duration, None)
    return result


def preview(
    store: PushStore,
    target: Target,
    selection: Selection,
    *,
    conference: str | None = None,
    options: SyncOptions = SyncOptions(),
    cache: EventCache | None = None,
    base_url: str | None = None,
) -> Preview:
    wanted = _wanted(store, selection, conference, cache, base_url)
    storage = with_retry(lambda: _connect(target, options), options.retry)
    try:
        state = SyncState(store.engine, storage.url, scope=wanted.schedule.conference.slug)
        actions = make_plan(storage, state, wanted.desired, options.retry)
    finally:
        storage.close()
    return Preview(tuple(actions), wanted.titles)


def remove(
    store: PushStore,
    target: Target,
    *,
    conference: str,
    options: SyncOptions = SyncOptions(),
) -> SyncResult:
    started = time.monotonic()
    try:
        # No titles: they are read only for progress steps, and remove reports none (progress None).
        summary, checked = _run(store.engine, target, conference, [], options, {}, None, None)
    except Exception as exc:
        log_sync(target, None, _since(started), exc, what="remove")
        raise
    result = _result(target, summary, _since(started), checked)
    log_sync(target, result, result.duration, None, what="remove")
    return result


def log_sync(
    target: Target,
    result: SyncResult | None,
    duration: timedelta,
    error: BaseException | None,
    *,
    what: str = "sync",
) -> None:
    """One line per run. Only the target's id (or public URL), counts, duration and the error's
    class: never the password, an Authorization header or the pick token."""
    name = target_name(target)
    seconds = duration.total_seconds()
    if result is not None:
        log.info(
            "caldav %s target=%s created=%d updated=%d deleted=%d unchanged=%d conflicts=%d duration=%.3fs",
            what,
            name,
            result.created,
            result.updated,
            result.deleted,
            result.unchanged,
            result.counts.conflicts,
            seconds,
        )
    else:
        log.warning(
            "caldav %s target=%s failed error=%s duration=%.3fs",
            what,
            name,
            type(error).__name__,
            seconds,
        )


def target_name(target: Target) -> str:
    return target.id if target.id is not None else public_url(target.url)


# -- internals -------------------------------------------------------------------------------------


def _connect(target: Target, options: SyncOptions) -> DavStorage:
    return DavStorage.connect(
        target.url,
        target.username,
        target.password,
        allow_private=options.allow_private,
        timeout=options.timeout,
        deadline=options.deadline,
    )


def _run(
    engine: Engine,
    target: Target,
    scope: str,
    desired: Sequence[DesiredEvent],
    options: SyncOptions,
    titles: dict[str, str],
    progress: Callable[[Step], None] | None,
    waiting: Callable[[str], None] | None,
) -> tuple[Summary, bool]:
    """The run's summary, and whether the server ignores preconditions (DavStorage.checks_writes)."""
    # The lease comes first: a waiting sync holds no connection, and plans from a listing made
    # after the previous sync of this calendar finished.
    key = calendar_key(check_url(target.url))
    with hold_calendar(
        engine, key, wait=options.lock_wait, ttl=timedelta(seconds=options.lock_ttl), waiting=waiting
    ) as lease:
        storage = with_retry(lambda: _connect(target, options), options.retry)
        try:
            state = SyncState(engine, storage.url, scope=scope)

            def report(done: int, total: int, action: Action, outcome: str) -> None:
                lease.renew()
                if progress is not None and not isinstance(action, Keep):
                    of = uid_of(action)
                    progress(Step(done, total, outcome, of, titles.get(of, "")))

            summary = push(
                storage,
                state,
                desired,
                overwrite=options.overwrite,
                retry=options.retry,
                progress=report,
            )
            return summary, storage.checks_writes
        finally:
            storage.close()


def _wanted(
    store: PushStore,
    selection: Selection,
    conference: str | None,
    cache: EventCache | None,
    base_url: str | None,
) -> _Wanted:
    ids: Sequence[str]
    if isinstance(selection, PickToken):
        pickset = PickStore(store.engine).get(selection.token)
        if pickset is None:
            # The token is a secret: messages never repeat it.
            raise PicksNotFound("no picks are stored under that token in this store")
        if conference is not None and pickset.conference != conference:
            raise PicksOfAnotherConference(f"those picks are for {pickset.conference}, not for {conference}")
        conference, ids = pickset.conference, pickset.sessions
    else:
        ids = selection.ids
    schedule = store.live(conference)
    if schedule is None:
        if conference is None:
            raise StoreError("the store holds no schedule yet; run `confcal ingest` first")
        raise StoreError(f"the store holds no conference {conference!r}")
    sessions: list[Session] = select_sessions(schedule, ids)
    desired = desired_events(schedule, sessions, cache=cache if cache is not None else _OWN_CACHE, base_url=base_url)
    titles = {uid(schedule.conference, s): s.title for s in sessions}
    return _Wanted(schedule, desired, titles)


def _result(target: Target, summary: Summary, duration: timedelta, checked_writes: bool) -> SyncResult:
    return SyncResult(
        target=target_name(target),
        counts=replace(summary.counts, checked_writes=int(checked_writes)),
        conflicts=tuple(summary.conflicts),
        duration=duration,
        checked_writes=checked_writes,
    )


def _since(started: float) -> timedelta:
    return timedelta(seconds=time.monotonic() - started)
