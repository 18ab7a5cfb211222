"""The executor: carry out a plan against a Storage, recording each write in the sync state.

Crash safety: each state row is saved right after the write it records, so the only
inconsistent window is "write done, row not saved". The next run sees it as a Claim (a create
whose name is taken) or a Conflict (an update whose ETag moved); both GET the resource and
adopt it when it is exactly what we would write now, so resuming never duplicates or
overwrites. Anything else is reported as a conflict and left alone unless `overwrite`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import urljoin

from server.caldav.content import same_event, uids
from server.caldav.errors import (
    ItemNotFound,
    PreconditionFailed,
    ServerFailed,
    ServerUnreachable,
    UidConflict,
)
from server.caldav.plan import (
    Action,
    Claim,
    Conflict,
    Create,
    Delete,
    DesiredEvent,
    Forget,
    Keep,
    Update,
)
from server.caldav.retry import DEFAULT_RETRY, RetryPolicy, with_retry
from server.caldav.state import StateRow, SyncState
from server.caldav.storage import Item, Storage
from server.store.sync_counts import SyncCounts, WithCounts

T = TypeVar("T")

CREATED, UPDATED, DELETED, UNCHANGED, CONFLICT = (
    "created",
    "updated",
    "deleted",
    "unchanged",
    "conflict",
)

# A conflict of its own kind, counted apart as well: the UID is held in another calendar.
ELSEWHERE = "elsewhere"

Progress = Callable[[int, int, Action, str], None]
"""Called after each action with (done, total, action, outcome)."""


@dataclass(frozen=True)
class Summary(WithCounts):
    counts: SyncCounts
    conflicts: list[str]  # one line per conflict: "UID: reason"


class Executor:
    def __init__(
        self,
        storage: Storage,
        state: SyncState,
        *,
        # Never overwrite unless asked: an owner's edit is theirs to keep.
        overwrite: bool = False,
        retry: RetryPolicy = DEFAULT_RETRY,
        progress: Progress | None = None,
    ) -> None:
        self.storage = storage
        self.state = state
        self.overwrite = overwrite
        self.retry = retry
        self.progress = progress

    def run(self, actions: Iterable[Action]) -> Summary:
        todo = list(actions)
        counts = SyncCounts()
        conflicts: list[str] = []
        for done, action in enumerate(todo, start=1):
            try:
                outcome, message = self._one(action)
            except (ServerUnreachable, ServerFailed) as exc:
                # Still one line, but saying how far it got; the state is consistent, so a
                # later run picks up from here.
                raise type(exc)(f"{exc}; stopped at change {done} of {len(todo)}, run again to finish") from exc
            if outcome == ELSEWHERE:
                counts, outcome = counts.add("elsewhere"), CONFLICT
            # Only a conflict has a message worth keeping; every other outcome returns "".
            counts = counts.add("conflicts" if outcome == CONFLICT else outcome)
            if outcome == CONFLICT:
                conflicts.append(message)
            if self.progress is not None:
                self.progress(done, len(todo), action, outcome)
        return Summary(counts, conflicts)

    # -- one action ----------------------------------------------------------------------------

    def _one(self, action: Action) -> tuple[str, str]:
        if isinstance(action, Keep):
            return UNCHANGED, ""
        if isinstance(action, Forget):
            self.state.forget(action.uid)
            return UNCHANGED, ""
        if isinstance(action, Create):
            return self._create(action.event, action.name)
        if isinstance(action, Claim):
            return self._claim(action.event, action.name)
        if isinstance(action, Update):
            try:
                etag = self._call(lambda: self.storage.update(action.name, action.event.ics, action.etag))
            except (PreconditionFailed, ItemNotFound):
                return self._resolve(action.event.uid, action.name, action.event)
            self._save(action.event, action.name, etag)
            return UPDATED, ""
        if isinstance(action, Delete):
            return self._delete(action.uid, action.name, action.etag)
        if isinstance(action, Conflict):
            return self._resolve(action.uid, action.name, action.event)
        # Unreachable: Action is a closed union, every member handled above.
        raise AssertionError(f"unknown action {action!r}")

    def _create(self, event: DesiredEvent, name: str, *, claim: bool = True) -> tuple[str, str]:
        try:
            etag = self._call(lambda: self.storage.create(name, event.ics))
        except PreconditionFailed:
            # A crashed run's PUT, or a lost answer to ours.
            if claim:
                return self._claim(event, name, create=False)
            return (
                CONFLICT,
                f"{event.uid}: {name} keeps changing in the calendar; left alone",
            )
        except UidConflict as exc:
            # A holder the server named is another resource of the account (Cyrus); without one
            # the calendar itself holds the UID under another name.
            return (ELSEWHERE if _in_another_calendar(self.storage.url, exc) else CONFLICT), _held_elsewhere(
                event.uid, exc
            )
        self._save(event, name, etag)
        return CREATED, ""

    def _claim(self, event: DesiredEvent, name: str, *, create: bool = True) -> tuple[str, str]:
        """Adopt what is at our name only if it is exactly what we would write. The keyword
        arguments make create -> claim -> create end after one round: never a loop."""
        item = self._get(name)
        if item is None:
            if create:
                return self._create(event, name, claim=False)
            return (
                CONFLICT,
                f"{event.uid}: {name} keeps changing in the calendar; left alone",
            )
        if uids(item.ics) == {event.uid} and same_event(item.ics, event.ics):
            self._save(event, name, item.etag)
            return CREATED, ""
        return (
            CONFLICT,
            f"{event.uid}: {name} already exists in the calendar with other content; left alone",
        )

    def _delete(self, uid: str, name: str, etag: str) -> tuple[str, str]:
        try:
            self._call(lambda: self.storage.delete(name, etag))
        except ItemNotFound:
            pass  # gone already (our own earlier attempt, or the owner): the goal is met
        except PreconditionFailed:
            return self._resolve(uid, name, None)
        self.state.forget(uid)
        return DELETED, ""

    def _resolve(self, uid: str, name: str, event: DesiredEvent | None) -> tuple[str, str]:
        """The owner changed (or deleted) our event since we wrote it; the schedule changed it too."""
        item = self._get(name)
        if event is None:
            if item is None:
                self.state.forget(uid)
                return DELETED, ""
            if not self.overwrite:
                return (
                    CONFLICT,
                    f"{uid}: changed in the calendar since the last push; not deleted",
                )
            return self._delete_exactly(uid, name, item)
        if item is not None and uids(item.ics) == {uid} and same_event(item.ics, event.ics):
            # Already what we want: an earlier attempt's answer was lost.
            self._save(event, name, item.etag)
            return UPDATED, ""
        if not self.overwrite:
            what = "changed" if item is not None else "deleted"
            return (
                CONFLICT,
                f"{uid}: {what} in the calendar since the last push; kept the calendar's version",
            )
        try:
            if item is None:
                etag = self._call(lambda: self.storage.create(name, event.ics))
            else:
                etag = self._call(lambda: self.storage.update(name, event.ics, item.etag))
        except (PreconditionFailed, ItemNotFound, UidConflict):
            # Changed again under our feet: never loop, never write without a precondition.
            return (
                CONFLICT,
                f"{uid}: changed in the calendar while pushing; kept the calendar's version",
            )
        self._save(event, name, etag)
        return UPDATED, ""

    def _delete_exactly(self, uid: str, name: str, item: Item) -> tuple[str, str]:
        try:
            self._call(lambda: self.storage.delete(name, item.etag))
        except ItemNotFound:
            pass
        except PreconditionFailed:
            return (
                CONFLICT,
                f"{uid}: changed in the calendar while pushing; not deleted",
            )
        self.state.forget(uid)
        return DELETED, ""

    # -- helpers ---------------------------------------------------------------------------------

    def _get(self, name: str) -> Item | None:
        try:
            return self._call(lambda: self.storage.get(name))
        except ItemNotFound:
            return None

    def _call(self, request: Callable[[], T]) -> T:
        return with_retry(request, self.retry)

    def _save(self, event: DesiredEvent, name: str, etag: str) -> None:
        self.state.save(
            StateRow(
                uid=event.uid,
                name=name,
                etag=etag,
                revision=event.revision,
                digest=event.digest,
            )
        )


def _in_another_calendar(url: str, exc: UidConflict) -> bool:
    """Whether the holder the server named lies outside the calendar at `url`."""
    if not exc.holder:
        return False
    return urljoin(url, exc.holder).rsplit("/", 1)[0] + "/" != url


def _held_elsewhere(uid: str, exc: UidConflict) -> str:
    """The conflict line for a UID the server says is held by another resource: the calendar's
    name when known, else the holder's URL (Cyrus names it), else this calendar (no-uid-conflict,
    or our own UID lookup)."""
    if exc.calendar is not None:
        return f"{uid}: already in your calendar '{exc.calendar}'; left alone"
    if exc.holder is not None:
        return f"{uid}: already in your calendar at {exc.holder}; left alone"
    return f"{uid}: the calendar already holds this UID in an event confcal did not create; left alone"
