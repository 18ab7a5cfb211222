"""One CalDAV sync job: bring attached calendar X up to (at least) generation G.

Safe to lose and to repeat: the target's row carries the truth (server.store.caldav_wanted). A
job claims the row (server.jobs.sync_leases), pushes the pick set's sessions with the push
service, and records the outcome; a duplicate finds the generation synced or the row held and
does nothing, and a job lost with its worker is queued again by the sweep once the lease it held
runs out. While a sync runs, a heartbeat renews its lease, so the lease can be short (a killed
worker's calendar is taken over within a minute) whatever the calendar's size.

Outcomes (server.jobs.backoff): synced; transient failure (5xx, 429, network), tried again
after a jittered exponential backoff; credentials refused, the target is set `needs_credentials`
and left until the attendee gives new ones; any other refusal, recorded and left until the next
change. Each outcome is one log line with the target id, counts, duration and error class, never
a URL's credentials, a password or a pick token.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Engine

from server.errors import ServerError
from server.jobs import sync_leases
from server.jobs.backoff import DEFAULT_BACKOFF, Backoff, Judged, Verdict, judge
from server.jobs.limits import PER_HOST
from server.jobs.sync_leases import Claimed, Refused
from server.store.rows import to_db_time
from server.store.sync_counts import SyncCounts

log = logging.getLogger("confcal.jobs.caldav")


Push = Callable[[Claimed], SyncCounts]


@dataclass(frozen=True)
class SyncSettings:
    per_host: int = PER_HOST
    # Renewed every third of it while a sync runs: this is how long a dead worker holds a target.
    lease: timedelta = timedelta(seconds=60)
    backoff: Backoff = DEFAULT_BACKOFF
    # A job refused by the host limit comes back after about this long (jittered).
    host_wait: timedelta = timedelta(seconds=1)
    draw: Callable[[], float] = field(default=random.random)
    # Where the servers' feeds link each event (`--base-url`, `--default`): a pushed event is the
    # same bytes as the feeds' (server.caldav.events), so it links to the same page.
    base_url: str | None = None
    default: str | None = None


@dataclass(frozen=True)
class Again:
    """Queue target `target` for generation `generation` again at `at`."""

    target: int
    generation: int
    at: datetime


def run_sync(
    engine: Engine,
    target_id: int,
    generation: int,
    push: Push,
    settings: SyncSettings,
    clock: Callable[[], datetime],
) -> Again | None:
    """Claim, sync and record target `target_id`; what to queue next, if anything."""
    owner = f"{os.uname().nodename}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
    claimed = sync_leases.claim(engine, target_id, generation, owner, clock(), settings.lease, settings.per_host)
    if claimed is Refused.HOST_BUSY:
        wait = settings.host_wait * (0.5 + settings.draw())
        return Again(target_id, generation, clock() + wait)
    if isinstance(claimed, Refused):
        return None
    started = time.monotonic()
    try:
        with _heartbeat(engine, claimed, settings.lease, clock):
            counts = push(claimed)
    except Exception as exc:  # every failure is recorded on the row; none may kill the worker
        return _failed(engine, claimed, exc, settings, clock, time.monotonic() - started)
    took = time.monotonic() - started
    values = {"last_result": "ok", "last_error": None, "counts": asdict(counts)}
    if not sync_leases.finish(engine, claimed, values, clock(), done=True):
        log.warning("caldav sync target %d: lease lost before it was recorded (%.2f s)", claimed.id, took)
        return None
    # The push service logs the run itself (target, counts, duration); this is the job's view.
    log.debug("caldav sync target %d: ok in %.2f s: %s", claimed.id, took, counts.line())
    return _more(engine, claimed, clock)


def _failed(
    engine: Engine, claimed: Claimed, exc: Exception, settings: SyncSettings, clock: Callable[[], datetime], took: float
) -> Again | None:
    judged = judge(exc)
    kind = type(exc).__name__
    # CalDAV and store errors name the calendar without userinfo and never a password; anything
    # else (a bug) may say anything, so only its class is kept.
    message = f"{kind}: {exc}" if isinstance(exc, ServerError) else f"{kind}: internal error"
    now = clock()
    values: dict[str, object] = {"last_result": "error", "last_error": message}
    if judged.verdict is Verdict.NEEDS_CREDENTIALS:
        values |= {"state": sync_leases.NEEDS_CREDENTIALS, "attempts": 0, "next_attempt_at": None}
        sync_leases.finish(engine, claimed, values, now, done=False)
        log.warning("caldav sync target %d: %s after %.2f s; needs new credentials", claimed.id, kind, took)
        return None
    failures = claimed.attempts + 1
    if judged.verdict is Verdict.RETRY and not settings.backoff.gives_up(failures):
        at = now + _delay(judged, failures, settings)
        values |= {"attempts": failures, "next_attempt_at": to_db_time(at)}
        sync_leases.finish(engine, claimed, values, now, done=False)
        log.warning(
            "caldav sync target %d: %s after %.2f s; attempt %d, next at %s",
            claimed.id,
            kind,
            took,
            failures,
            at.isoformat(timespec="seconds"),
        )
        return Again(claimed.id, claimed.generation, at)
    if judged.verdict is Verdict.RETRY:
        values["last_error"] = f"{message} (gave up after {failures} attempts)"
    sync_leases.finish(engine, claimed, values, now, done=True)
    log.warning("caldav sync target %d: %s after %.2f s; stopped until the next change", claimed.id, kind, took)
    return _more(engine, claimed, clock)


def _delay(judged: Judged, failures: int, settings: SyncSettings) -> timedelta:
    return settings.backoff.delay(failures, judged.retry_after, settings.draw)


def _more(engine: Engine, claimed: Claimed, clock: Callable[[], datetime]) -> Again | None:
    """A picks change or new version that came in while this sync ran wants another one."""
    newer = sync_leases.wanted_generation(engine, claimed.id)
    return None if newer is None else Again(claimed.id, newer, clock())


@contextmanager
def _heartbeat(engine: Engine, claimed: Claimed, lease: timedelta, clock: Callable[[], datetime]) -> Iterator[None]:
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(lease.total_seconds() / 3):
            try:
                if not sync_leases.renew(engine, claimed, clock(), lease):
                    return  # taken over; the preconditions on every write keep the calendar safe
            except ServerError:
                pass  # the store is busy; the next beat tries again before the lease runs out

    thread = threading.Thread(target=beat, name=f"lease-{claimed.id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
