"""The planner: compare what the calendar should hold with what we pushed and what is there now.

Pure function, vdirsyncer's model: one action per UID, decided from three inputs only -
the desired events, our sync-state rows, and the remote ETags (a listing; no bodies read).

The rules (`remote` = the ETag now on the server for our resource name):
- desired, no state row                 -> Create (or Claim if the name is already taken:
                                           a previous run may have crashed after its PUT)
- desired, state, remote == state etag  -> Update if our content changed, else Keep
- not desired, state, remote == etag    -> Delete (unpicked or cancelled)
- state, remote differs or is gone      -> the owner changed or deleted it. If we have nothing
                                           new for it, Keep (their version stands, no report);
                                           otherwise Conflict, resolved by the executor.
- not desired, state, remote gone       -> Forget the row (already deleted by someone)
A remote resource without a state row is never in the plan: it is not ours.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from server.caldav.rows import StateRow, digest
from server.caldav.storage import name_for


@dataclass(frozen=True)
class DesiredEvent:
    """One event the calendar should hold: the feed's UID, the session revision, the VCALENDAR body."""

    uid: str
    revision: int
    ics: bytes

    @property
    def digest(self) -> str:
        return digest(self.ics)


@dataclass(frozen=True)
class Create:
    event: DesiredEvent
    name: str
    verb = "create"


@dataclass(frozen=True)
class Claim:
    """Our name is taken but we have no row: adopt it only if it is exactly what we would write."""

    event: DesiredEvent
    name: str
    etag: str
    verb = "create"


@dataclass(frozen=True)
class Update:
    event: DesiredEvent
    name: str
    etag: str
    verb = "update"


@dataclass(frozen=True)
class Delete:
    uid: str
    name: str
    etag: str
    verb = "delete"


@dataclass(frozen=True)
class Forget:
    uid: str
    name: str
    verb = "forget"


@dataclass(frozen=True)
class Keep:
    uid: str
    name: str
    owner_changed: bool = False
    verb = "keep"


@dataclass(frozen=True)
class Conflict:
    """The owner changed or deleted our event and the schedule changed it too.

    `event` is None when we want it deleted; `etag` is None when the owner deleted it.
    """

    uid: str
    name: str
    event: DesiredEvent | None
    etag: str | None
    verb = "conflict"


Action = Create | Claim | Update | Delete | Forget | Keep | Conflict


def uid_of(action: Action) -> str:
    return action.event.uid if isinstance(action, (Create, Claim, Update)) else action.uid


def plan(
    desired: Iterable[DesiredEvent],
    state: Mapping[str, StateRow],
    remote: Mapping[str, str],
) -> list[Action]:
    """One action per UID in desired or state, deletes first, then by UID (stable output)."""
    wanted: dict[str, DesiredEvent] = {}
    for event in desired:
        if event.uid in wanted:
            raise ValueError(f"UID {event.uid!r} is desired twice")
        wanted[event.uid] = event

    actions: list[Action] = []
    for uid in sorted(wanted.keys() | state.keys()):
        actions.append(_decide(wanted.get(uid), state.get(uid), remote, uid))
    # Deletes first, then the changes; Keep, which writes nothing, last.
    order = {Delete: 0, Forget: 1, Conflict: 2, Update: 3, Claim: 4, Create: 5, Keep: 6}
    return sorted(actions, key=lambda a: order[type(a)])


def _decide(
    event: DesiredEvent | None,
    row: StateRow | None,
    remote: Mapping[str, str],
    uid: str,
) -> Action:
    if row is None:
        assert event is not None
        name = name_for(uid)
        if name in remote:
            return Claim(event=event, name=name, etag=remote[name])
        return Create(event=event, name=name)

    now = remote.get(row.name)
    ours = now == row.etag
    changed = event is None or event.digest != row.digest
    if not changed:
        return Keep(uid=uid, name=row.name, owner_changed=not ours)
    if ours:
        assert now is not None
        if event is None:
            return Delete(uid=uid, name=row.name, etag=now)
        return Update(event=event, name=row.name, etag=now)
    if event is None and now is None:
        return Forget(uid=uid, name=row.name)
    return Conflict(uid=uid, name=row.name, event=event, etag=now)
