"""What a version changed that people can see: new, moved, retitled, cancelled and restored
sessions, with the before and after of each. Pure functions over sessions (no store, no clock).

"Visible" is what an attendee notices in a calendar or on the page: the time or room (moved), the
title (retitled), the session appearing, disappearing or coming back. An edit of a description
or a speaker's bio is a new revision in the feeds but not a line in the changelog.

Times are shown in the conference's zone, the zone the schedule is printed in.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from feeds.model import Session, Status


class ChangeKind(enum.Enum):
    # In the order a changelog entry lists them.
    NEW = "new"
    MOVED = "moved"
    RETITLED = "retitled"
    CANCELLED = "cancelled"
    RESTORED = "restored"


@dataclass(frozen=True)
class SessionChange:
    """One visible change of one session; `before` is None for a new session."""

    kind: ChangeKind
    before: Session | None
    after: Session

    @property
    def id(self) -> str:
        return self.after.id


@dataclass(frozen=True)
class VersionChanges:
    """The visible changes of one version. `first`: the version that published the schedule
    (its sessions are not listed one by one); `rollback_of`: the version a rollback restored."""

    version: int
    conference: str
    created: datetime
    changes: tuple[SessionChange, ...]
    first: bool = False
    rollback_of: int | None = None
    sessions: int = 0  # live sessions after this version

    @property
    def visible(self) -> bool:
        return self.first or bool(self.changes)

    def of_kind(self, kind: ChangeKind) -> tuple[SessionChange, ...]:
        return tuple(c for c in self.changes if c.kind is kind)


def _moved(old: Session, new: Session) -> bool:
    return (old.start, old.end, _room(old)) != (new.start, new.end, _room(new))


def _room(session: Session) -> str | None:
    return session.room.name if session.room else None


def session_changes(old: Session | None, new: Session) -> tuple[SessionChange, ...]:
    """The visible changes from `old` (None: not there before) to `new`."""
    if old is None:
        return () if new.cancelled else (SessionChange(ChangeKind.NEW, None, new),)
    if old.cancelled and new.cancelled:
        return ()
    if new.cancelled:
        return (SessionChange(ChangeKind.CANCELLED, old, new),)
    if old.cancelled:
        return (SessionChange(ChangeKind.RESTORED, old, new),)
    found: list[SessionChange] = []
    if _moved(old, new):
        found.append(SessionChange(ChangeKind.MOVED, old, new))
    if old.title != new.title:
        found.append(SessionChange(ChangeKind.RETITLED, old, new))
    return tuple(found)


def compare(before: Mapping[str, Session], after: Iterable[Session]) -> tuple[SessionChange, ...]:
    """Every visible change from the sessions `before` (by id) to `after`, in changelog order:
    by kind, then by the session's (new) start and title."""
    found = [change for new in after for change in session_changes(before.get(new.id), new)]
    order = list(ChangeKind)
    return tuple(sorted(found, key=lambda c: (order.index(c.kind), c.after.start, c.after.title, c.id)))


def between(before: Mapping[str, Session], after: Mapping[str, Session]) -> tuple[SessionChange, ...]:
    """The visible changes from one whole version's content to another's (`confcal diff`). A
    session missing from `after` (it did not exist yet there) counts as cancelled."""
    gone = [_withdrawn(s) for sid, s in before.items() if sid not in after and not s.cancelled]
    return compare(before, [*after.values(), *gone])


def _withdrawn(session: Session) -> Session:
    return replace(session, status=Status.CANCELLED)


# --- words -------------------------------------------------------------------------------------


def when(session: Session, zone: ZoneInfo, *, date: bool = True) -> str:
    """`Tue 7 Apr 11:00–11:25` in the conference zone (`11:00–11:25` without the date)."""
    start, end = session.start.astimezone(zone), session.end.astimezone(zone)
    span = f"{start:%H:%M}–{end:%H:%M}"
    return f"{start:%a} {start.day} {start:%b} {span}" if date else span


def place(session: Session, zone: ZoneInfo) -> str:
    """When and where: `Tue 7 Apr 11:00–11:25, Master Stage`."""
    room = _room(session)
    return when(session, zone) + (f", {room}" if room else "")


def detail(change: SessionChange, zone: ZoneInfo) -> str:
    """What changed, in words: `Title: Tue 7 Apr 11:00–11:25, Master Stage → Tue 7 Apr
    12:00–12:25, Junior Stage` for a move, `Old title → New title` for a retitle, else the title
    and where it is (was, for a cancelled session)."""
    new = change.after
    if change.kind is ChangeKind.MOVED and change.before is not None:
        return f"{new.title}: {place(change.before, zone)} → {place(new, zone)}"
    if change.kind is ChangeKind.RETITLED and change.before is not None:
        return f"{change.before.title} → {new.title}"
    return f"{new.title} ({place(new, zone)})"


def description_line(change: SessionChange, zone: ZoneInfo) -> str:
    """The first DESCRIPTION line of a changed event in a personal feed: `Moved from 11:00
    Master Stage` (the old day too when it was another day), `Retitled from Old title`."""
    old = change.before
    if old is None:
        return ""
    if change.kind is ChangeKind.MOVED:
        same_day = old.start.astimezone(zone).date() == change.after.start.astimezone(zone).date()
        start = old.start.astimezone(zone)
        at = f"{start:%H:%M}" if same_day else f"{start:%a} {start.day} {start:%b} {start:%H:%M}"
        room = _room(old)
        return f"Moved from {at}" + (f" {room}" if room else "")
    if change.kind is ChangeKind.RETITLED:
        return f"Retitled from {old.title}"
    if change.kind is ChangeKind.CANCELLED:
        return "Cancelled"
    return ""
