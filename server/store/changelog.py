"""A conference's changelog: the visible changes of every version, oldest first, from the rows
each version wrote (server.store.history). Pure: the caller reads the store.

Versions from before the store recorded content (see history.py, "baseline") have only the ids
and titles their diff names; their entries list those sessions as the baseline shows them,
without the before side of a move or a retitle.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence

from feeds.model import Session
from server.store.changes import ChangeKind, SessionChange, VersionChanges, compare
from server.store.history import VersionRecord, Written

# The stored diff's field names that make a change a move (server.store.diff.CONTENT_FIELDS).
_MOVE_FIELDS = {"start", "end", "room"}


def changelog(records: Sequence[VersionRecord], written: Mapping[int, Sequence[Session]]) -> tuple[VersionChanges, ...]:
    """One `VersionChanges` per version in `records` (oldest first), visible or not."""
    recorded = [r.version for r in records if r.version in written]
    baseline = recorded[0] if recorded else None
    known: Mapping[str, Session] = {}
    if baseline is not None and baseline != records[0].version:
        known = _State.of(_written(written[baseline]))  # the live rows at the baseline
    state = _State()
    entries: list[VersionChanges] = []
    for index, record in enumerate(records):
        rows = _written(written.get(record.version, ()))
        if index == 0:
            changes: tuple[SessionChange, ...] = ()
        elif baseline is None or record.version <= baseline:
            changes = _from_diff(record.diff, known)
        else:
            changes = compare(state, rows)
        state.update(rows)
        entries.append(_entry(record, changes, first=index == 0, live=state.live))
    return tuple(entries)


def first_entry(record: VersionRecord, live: int) -> VersionChanges:
    """The entry `changelog` makes for the first version, which published `live` sessions: no
    changes (everything is new)."""
    return _entry(record, (), first=True, live=live)


def changelog_tail(
    records: Sequence[VersionRecord], written: Mapping[int, Sequence[Session]], before: Mapping[str, Session], live: int
) -> tuple[VersionChanges, ...]:
    """The entries `changelog` makes for `records`, versions after the first and after the recorded
    baseline (oldest first), without the versions before them: `before` holds every session they
    write as the version before the first of them left it (none: not there yet), `live` is that
    version's live sessions (its entry's `sessions`). So a build adding one version reads its rows
    and the rows it changed, not every row of every version (changelog_since.py)."""
    state = dict(before)
    entries: list[VersionChanges] = []
    for record in records:
        rows = written.get(record.version, ())
        changes = compare(state, rows)
        for session in rows:
            last = state.get(session.id)
            live += (not session.cancelled) - (last is not None and not last.cancelled)
            state[session.id] = session
        entries.append(_entry(record, changes, first=False, live=live))
    return tuple(entries)


def _entry(record: VersionRecord, changes: tuple[SessionChange, ...], *, first: bool, live: int) -> VersionChanges:
    rollback = record.diff.get("rollback_of")
    return VersionChanges(
        version=record.version,
        conference=record.conference,
        created=record.created,
        changes=changes,
        first=first,
        rollback_of=int(rollback) if rollback is not None else None,
        sessions=live,
    )


def _written(rows: Sequence[Session]) -> Written:
    return rows if isinstance(rows, Written) else Written(made=rows)


class _State(Mapping[str, Session]):
    """Every session as of the version the walk is at: the rows that wrote it last, made into
    sessions only for the ids a later version compares (history.Written); `live` counts the
    sessions not cancelled."""

    def __init__(self) -> None:
        self._by_id: dict[str, Written] = {}
        self.live = 0

    @classmethod
    def of(cls, rows: Written) -> _State:
        state = cls()
        state.update(rows)
        return state

    def update(self, rows: Written) -> None:
        for sid in rows.ids():
            last = self._by_id.get(sid)
            if last is not None and not last.cancelled(sid):
                self.live -= 1
            if not rows.cancelled(sid):
                self.live += 1
            self._by_id[sid] = rows

    def __getitem__(self, sid: str) -> Session:
        found = self._by_id[sid].session(sid)
        assert found is not None  # the rows hold the ids they are filed under
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)


def _from_diff(diff: Mapping[str, object], known: Mapping[str, Session]) -> tuple[SessionChange, ...]:
    """What a version's stored diff says, for a version whose rows were not recorded."""
    titles = diff.get("titles")
    named = titles if isinstance(titles, dict) else {}

    def session(sid: str) -> Session | None:
        found = known.get(sid)
        return None if found is None else dataclasses.replace(found, title=str(named.get(sid, found.title)))

    found: list[SessionChange] = []
    for kind, key in (
        (ChangeKind.NEW, "added"),
        (ChangeKind.CANCELLED, "cancelled"),
        (ChangeKind.RESTORED, "restored"),
    ):
        ids = diff.get(key)
        for sid in ids if isinstance(ids, list) else []:
            after = session(str(sid))
            if after is not None:
                found.append(SessionChange(kind, None, after))
    changed = diff.get("changed")
    for sid, fields in (changed if isinstance(changed, dict) else {}).items():
        after = session(str(sid))
        if after is not None and _MOVE_FIELDS & set(fields):
            found.append(SessionChange(ChangeKind.MOVED, None, after))
        if after is not None and "title" in fields:
            found.append(SessionChange(ChangeKind.RETITLED, None, after))
    order = list(ChangeKind)
    return tuple(sorted(found, key=lambda c: (order.index(c.kind), c.after.start, c.after.title, c.id)))
