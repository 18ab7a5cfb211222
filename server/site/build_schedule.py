"""The schedule a static build read of a conference, kept for the next build of it.

Reading every row of a large conference and making its sessions (Store.live) was the largest
single step of a rebuild after one change: a second of CPU at 50,000 sessions, for the one row
that changed. So a build keeps the sessions it read, with the version they were read at and what
wrote each row (RowWrites), as a part of the build record; the next build reads only the rows
written since (Store.read_since, as the server does for a new version) and puts them in place.

With them it keeps its feeds' members (server.snapshot.patch's Catalogue, as made at the build's
clock), which are the next largest step made from scratch (feeds.catalogue.partition passes over
every session for every feed): the next build patches them with the sessions written since, as
the server patches its snapshot, and makes them from scratch only where `patched` refuses.

The part is kept as it is while the rows written since are few, so a rebuild writes nothing
of it; past a twentieth of the sessions, or past the changes a patch takes, it is made again
from what this build read. A patch from a schedule kept some builds ago names the feeds whose
members changed since then, but not those a build in between changed and the next changed
back (a speaker given a session, then not): so each build also keeps the feeds every patch
since the kept schedule touched, and names them as touched too, for their files to be made
again rather than taken from the last build. It is used only when the version it was read at is still the
store's under the same name (a store or conference made anew names its versions anew), and
only with the digest the record gave it. It is a pickle: only confcal build writes it, into
the record's own directory beside OUTDIR, never published, and whoever could write there could
as well write the record or the output.
"""

from __future__ import annotations

import copyreg
import dataclasses
import io
import pickle
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from datetime import datetime
from types import MappingProxyType
from typing import Any, Protocol

from feeds.catalogue import FeedKind, FeedSpec
from feeds.model import Schedule, Session
from server.collector import lasting
from server.site.build_keys import code_key, digest
from server.site.build_output import Output
from server.site.build_texts import keep_map, kept_map
from server.snapshot.patch import MOST, Catalogue, Key, changed_sessions, members_of, patched
from server.snapshot.persistent import Overlay
from server.store.changelog_since import Before
from server.store.store import RowWrites, Since

# Rows written since the kept schedule, past which it is made again: a twentieth of its sessions.
_REMADE_PAST = 20


class Rows(Protocol):
    """What the kept schedule needs of server.store.Store."""

    def live(self, conference: str | None = None, writes: RowWrites | None = None) -> Schedule | None: ...

    def read_since(
        self, previous: Schedule, since: int, known: None = None, writes: RowWrites | None = None
    ) -> Since | None: ...


# A catalogue as kept: the clock it was made at, every feed's spec, members and until when it holds.
_Feeds = tuple[datetime, tuple[FeedSpec, ...], dict[Key, tuple[Session, ...]], datetime | None]

# What the part holds: the last version whose rows it shows, that version's name, the
# schedule, each session's id with the version that wrote its row, and the schedule's catalogue.
_State = tuple[int, str, Schedule, dict[str, int], _Feeds]


@dataclass(frozen=True)
class ScheduleRead:
    """A conference's schedule as a build read it, and its feeds' members patched from those the
    last build kept (None: they are made from scratch); `keep` once the snapshot is made."""

    schedule: Schedule
    catalogue: Catalogue | None
    # The sessions as of a version (changelog_since): the schedule the last build kept, else this one.
    before: Before
    _output: Output
    _key: str
    _writes: RowWrites
    _remake: bool
    # The feeds every patch since the kept schedule touched, as kept (`_touched_key`), and now.
    _touched: tuple[Mapping[str, int], frozenset[Key]] = (MappingProxyType({}), frozenset())

    def keep(self, catalogue: Catalogue, now: datetime) -> None:
        """Keep the schedule, with `catalogue` (its feeds' members at `now`), for the next build:
        the part as it is while the rows written since are few, with the feeds touched since,
        else made again (and no feed touched since it)."""
        if not self._remake:
            self._output.hold(self._key)
            last, touched = self._touched
            keep_map(self._output, _touched_key(self._key), {_name(key): 1 for key in touched}, last)
            return
        # Every row named was written by the newest version named or one before: the rows
        # written later are read again next time.
        writes = self._writes
        since = max(writes.versions, default=0)
        members = {key: tuple(group) for key, group in catalogue.members.items()}
        feeds: _Feeds = (now, catalogue.specs, members, catalogue.until)
        state: _State = (since, writes.versions.get(since, ""), self.schedule, dict(writes.rows), feeds)
        self._output.renew(self._key, _pickled(state))


def read_schedule(store: Rows, output: Output, slug: str, writes: RowWrites, now: datetime) -> ScheduleRead | None:
    """`store.live(slug, writes)`, from the schedule the last build kept and the rows written
    since when it kept one that still holds, with its feeds' members patched to `now` when
    `patched` can."""
    key = digest(code_key(), "schedule", slug)
    kept = _state(output.kept(key))
    if kept is not None:
        since, name, previous, rows, feeds = kept
        writes.rows.update(rows)
        found = store.read_since(previous, since, writes=writes)
        if found is not None and writes.versions.get(since) == name:
            written = len(found.written)
            remake = written * _REMADE_PAST > len(found.schedule.sessions) or written > MOST
            patched = _patched(feeds, previous, found, now)
            before = Before(since, previous.sessions)
            last: dict[str, int] = kept_map(output, _touched_key(key))
            touched: frozenset[Key] = frozenset()
            if patched is None or patched.touched is None:
                remake = True  # the feeds that changed since are not known: keep this schedule
            else:
                earlier = {_key_of(name) for name in last}
                touched = patched.touched | frozenset(key for key in earlier if key is not None)
                patched = dataclasses.replace(patched, touched=touched)
            return ScheduleRead(found.schedule, patched, before, output, key, writes, remake, (last, touched))
        writes.versions.clear()
        writes.rows.clear()
    schedule = store.live(slug, writes)
    if schedule is None:
        return None
    return ScheduleRead(
        schedule, None, Before(max(writes.versions, default=0), schedule.sessions), output, key, writes, True
    )


def _touched_key(key: str) -> str:
    """The part keeping the feeds touched since the schedule kept as the part `key`."""
    return digest(key, "touched since")


def _name(key: Key) -> str:
    kind, slug = key
    return f"{kind.value}/{slug}"


def _key_of(name: str) -> Key | None:
    kind, _, slug = name.partition("/")
    try:
        return FeedKind(kind), slug
    except ValueError:
        return None


def _patched(feeds: _Feeds, previous: Schedule, found: Since, now: datetime) -> Catalogue | None:
    """The kept catalogue of `previous` with the sessions `found` wrote, as at `now`; None when
    `patched` refuses, or the conference changed (feeds are named from it)."""
    if found.schedule.conference != previous.conference:
        return None
    made_at, specs, members, until = feeds
    kept = Catalogue.of(specs, Overlay({key: members_of(group) for key, group in members.items()}), until)
    written = {s.id for s in found.written}
    changes = changed_sessions({s.id: s for s in previous.sessions if s.id in written}, found.written)
    return patched(kept, made_at, changes, found.schedule.conference, now, len(found.schedule.sessions))


# A session's fields with a default, which its class holds as attributes (a dataclass's).
_DEFAULTS = {f.name: f.default for f in fields(Session) if f.default is not MISSING}
_Reduced = tuple[Callable[..., Any], tuple[type[Session]], dict[str, object]]


def _session_state(session: Session) -> _Reduced:
    """A session as kept: its fields not at their defaults (the class gives those back), so
    unpickling sets half the fields of a generated or scraped session, and a large
    conference's schedule is read back a quarter faster."""
    state = {
        name: value
        for name, value in vars(session).items()
        if not (name in _DEFAULTS and type(value) is type(_DEFAULTS[name]) and value == _DEFAULTS[name])
    }
    return copyreg.__newobj__, (Session,), state  # type: ignore[attr-defined]  # typeshed lacks it


def _pickled(state: _State) -> bytes:
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, Session: _session_state}
    pickler.dump(state)
    return out.getvalue()


def _state(body: bytes | None) -> _State | None:
    if body is None:
        return None
    try:
        # Hundreds of thousands of objects holding no cycle, kept for the whole build.
        with lasting():
            state = pickle.loads(body)  # noqa: S301 - the build's own part, checked by its digest
    except (pickle.UnpicklingError, AttributeError, ImportError, EOFError, TypeError, ValueError):
        return None
    return state if isinstance(state, tuple) and len(state) == 5 else None
