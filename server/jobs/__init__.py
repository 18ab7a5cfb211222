"""Background jobs on the Huey queue kept in the store's database (server.jobs.queue): source
refresh today (server.jobs.tasks), CalDAV sync next. `jobs_in_process` runs them inside
`confcal serve`, `run_worker` as `confcal worker`.

Adding a job (as CalDAV sync will): register it in `Jobs.__init__` with `queue.task(name=...)`,
make it "bring row X up to date" rather than "do step Y", and let the row decide who runs it: claim
the row with one conditional UPDATE (a lease that expires, and a generation the job was queued
for, as server.store.sources.SourceStore.claim does), so that a duplicate job does nothing and a
worker killed mid-job frees the row when its lease runs out; re-queue lost work from a periodic
sweep. Huey gives retries (`retries=`, `retry_delay=`, `retry_backoff=`, or raise
`huey.RetryTask(delay=...)` for a jittered delay) and delayed jobs (`.schedule(eta=...)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.lazy import exports

if TYPE_CHECKING:
    from server.jobs.runner import jobs_for, jobs_in_process, run_worker
    from server.jobs.tasks import Jobs

__all__ = ["Jobs", "jobs_for", "jobs_in_process", "run_worker"]

# Loaded on first use (PEP 562): the queue brings Huey, peewee and psycopg (slow to import), which
# `confcal build` and `ingest` never use but reach through a light module of this package
# (limits.py, the default of a setting every command reads).
_HOME = {
    "Jobs": "server.jobs.tasks",
    "jobs_for": "server.jobs.runner",
    "jobs_in_process": "server.jobs.runner",
    "run_worker": "server.jobs.runner",
}


__getattr__ = exports(__name__, _HOME)
