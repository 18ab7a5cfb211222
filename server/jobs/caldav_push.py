"""The push a sync job runs: the target's credentials from the store (decrypted only here, into a
Password that never prints), and the push service (server.caldav.service) with the pick
set's sessions, each event linking where the servers' feeds link it (`served_calendar_base`).

Within one sync the service retries a failed request briefly (`IN_SYNC_RETRY`); a sync that
still fails goes back to the job, which retries it later with a longer backoff
(server.jobs.backoff), so a worker thread never sleeps through a server's long outage.
"""

from __future__ import annotations

from datetime import timedelta

from server.caldav import service
from server.caldav.errors import CalDAVError
from server.caldav.retry import RetryPolicy
from server.caldav.target import PickToken, SyncOptions, Target, allow_private_calendars
from server.jobs.caldav_sync import Push
from server.jobs.sync_leases import Claimed
from server.links import served_calendar_base
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.sync_counts import SyncCounts

IN_SYNC_RETRY = RetryPolicy(attempts=3, base_delay=0.5, max_delay=4.0)


class TargetGone(CalDAVError):
    """The target was detached while its sync was queued."""


def default_push(
    store: Store,
    retry: RetryPolicy = IN_SYNC_RETRY,
    lease: timedelta = timedelta(seconds=60),
    *,
    base_url: str | None = None,
    default: str | None = None,
) -> Push:
    """Syncs pushing events that link to the sessions' pages under `base_url` (the servers'
    `--base-url`, with `default` their `--default`), as the feeds do; to their sources without."""
    targets = CaldavTargets(store.engine)
    # The calendar's own lock (server.caldav.lock) lives as long as the job's lease: a worker
    # killed mid-sync must not keep the calendar from the next one longer than its target.
    options = SyncOptions(
        retry=retry,
        allow_private=allow_private_calendars(),
        lock_ttl=lease.total_seconds(),
    )

    def run(claimed: Claimed) -> SyncCounts:
        credentials = targets.credentials(claimed.id)
        if credentials is None:
            raise TargetGone(f"target {claimed.id} is gone")
        target = Target(credentials.url, credentials.username, credentials.password, id=str(claimed.id))
        result = service.sync(
            store,
            target,
            PickToken(claimed.pick_token),
            conference=claimed.conference,
            options=options,
            base_url=served_calendar_base(base_url, claimed.conference, default, store),
        )
        return result.counts

    return run
