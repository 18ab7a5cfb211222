"""One push: list the calendar, plan against the sync state, execute (or only plan, for --dry-run)."""

from __future__ import annotations

from collections.abc import Iterable

from server.caldav.execute import Executor, Progress, Summary
from server.caldav.plan import Action, DesiredEvent, plan
from server.caldav.retry import DEFAULT_RETRY, RetryPolicy, with_retry
from server.caldav.state import SyncState
from server.caldav.storage import Storage


def make_plan(
    storage: Storage,
    state: SyncState,
    desired: Iterable[DesiredEvent],
    retry: RetryPolicy = DEFAULT_RETRY,
) -> list[Action]:
    """Read-only: one PROPFIND listing plus the state table."""
    remote = with_retry(storage.list, retry)
    return plan(desired, state.rows(), remote)


def push(
    storage: Storage,
    state: SyncState,
    desired: Iterable[DesiredEvent],
    *,
    overwrite: bool = False,
    retry: RetryPolicy = DEFAULT_RETRY,
    progress: Progress | None = None,
) -> Summary:
    actions = make_plan(storage, state, desired, retry)
    return Executor(storage, state, overwrite=overwrite, retry=retry, progress=progress).run(actions)
