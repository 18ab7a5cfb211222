"""Background jobs on the Huey queue kept in the store's database: source refresh today (see
server.jobs.tasks), CalDAV sync next. `jobs_in_process` runs them inside `confcal serve`,
`run_worker` as `confcal worker`."""

from __future__ import annotations

from server.jobs.runner import jobs_for, jobs_in_process, run_worker
from server.jobs.tasks import Jobs

__all__ = ["Jobs", "jobs_for", "jobs_in_process", "run_worker"]
