"""A snapshot's feeds patched from the snapshot before it, in the time of the sessions that changed.

Making a snapshot's feeds from scratch (feeds.catalogue's `catalogue` and `partition`) passes over
every session and costs about a second of CPU at 50,000 sessions: the server paid it for every
ingest, however small, before answering the new version. Yet which feeds hold a session is a
function of that session alone (its track, room, speakers, level, day and kind: `places`), and so
is whether it is shown (`visible`, given the clock). So when the sessions that changed are few,
only the feeds they were in and are in now are made again: each loses the old session and gets
the new one in its place in the order `partition` sorts (start, id); every other feed is the
previous snapshot's own object. The result is the same as from scratch (pinned by
tests/server/app/test_published_patch.py).

It is refused (None: make it from scratch) when it could differ:
- the clock: a cancelled session leaves the feeds when its grace period ends, so the previous
  snapshot's visibility holds only from its instant up to `until` (feeds.catalogue.visible_until);
- a feed's name: the catalogue names a feed after the alphabetically first name among its
  sessions (cancelled ones included, even those no longer shown). A changed session that takes
  away the name a feed is named after may rename it, or end it: the feed's sessions tell which
  while every session is shown (a speaker swapped, a track emptied), and only a pass over every
  session can tell while one is not. A session that keeps its places (moved, retitled,
  rescheduled: most changes) never does;
- many changes: past `MOST` changed sessions, a pass over all of them is as cheap.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from feeds.catalogue import CANCELLED_GRACE, LABELS, FeedKind, FeedSpec, places, spec_of, visible
from feeds.model import Conference, Session
from server.snapshot.persistent import CHUNK, Chunked, Overlay

MOST = 200
# A feed with more sessions than this holds them in chunks (`Chunked`), so a change copies a
# chunk, not the feed's every session: the whole conference's feed, a day's at a large one.
BIG = 4 * CHUNK

Key = tuple[FeedKind, str]
Members = tuple[Session, ...] | Chunked[Session]
_ORDER = {kind: at for at, kind in enumerate(LABELS)}


@dataclass(frozen=True)
class Catalogue:
    """Every feed's spec and members, in the catalogue's order, and until when it holds; `index`
    is each feed's place in `specs`, `touched` the feeds whose members `patched` changed (None:
    made from scratch). A patch that renames no feed keeps `specs` and `index` as they were,
    and `members` is an `Overlay` of the previous one with the touched feeds' members, so a
    snapshot with one changed session copies no structure of every feed or every session."""

    specs: tuple[FeedSpec, ...]
    members: Mapping[Key, Members]
    until: datetime | None
    index: Mapping[Key, int]
    touched: frozenset[Key] | None = None

    @classmethod
    def of(cls, specs: tuple[FeedSpec, ...], members: Mapping[Key, Members], until: datetime | None) -> Catalogue:
        return cls(specs, members, until, {(spec.kind, spec.slug): at for at, spec in enumerate(specs)})


def members_of(sessions: Iterable[Session]) -> Members:
    """A feed's sessions (sorted as `partition` sorts them), chunked when there are many."""
    whole = tuple(sessions)
    return Chunked.of(whole) if len(whole) > BIG else whole


def changed_sessions(
    before: Mapping[str, Session], sessions: Iterable[Session]
) -> list[tuple[Session | None, Session]]:
    """(the session as before or None, the session now) of every session of `sessions` that is
    not the same object as before (server.store.Store.read_since keeps unchanged sessions as
    they were, and names the ones it read, so `sessions` may be those alone)."""
    return [(before.get(s.id), s) for s in sessions if before.get(s.id) is not s]


def patched(
    previous: Catalogue,
    since: datetime,
    changes: list[tuple[Session | None, Session]],
    conference: Conference,
    now: datetime,
    size: int,
) -> Catalogue | None:
    """`previous` (made at `since`) with `changes` applied, as at `now`, of a schedule of `size`
    sessions (shown or not); None when it could differ from a catalogue made from scratch (the
    module's docstring says when)."""
    if len(changes) > MOST or now < since or (previous.until is not None and now > previous.until):
        return None
    specs_before, index = previous.specs, previous.index
    names: dict[Key, str] = {}
    touched: dict[Key, list[tuple[Session | None, Session | None]]] = {}
    until = previous.until
    changed = {new.id for _, new in changes}
    # The feeds whose name a changed session took away: renamed after the sessions they hold now, or ended.
    unnamed: set[Key] = set()
    for old, new in changes:
        before = {(kind, slug, name) for kind, slug, name in places(old, conference)} if old is not None else set()
        after = places(new, conference)
        for place in before - set(after):
            kind, slug, name = place
            if name == specs_before[index[kind, slug]].name and not _held(place, previous.members, changed, conference):
                unnamed.add((kind, slug))
        for kind, slug, name in after:
            at = index.get((kind, slug))
            known = names.get((kind, slug), specs_before[at].name if at is not None else None)
            if known is None or name < known:
                names[kind, slug] = name
        shown_old = old if old is not None and visible(old, now) else None
        shown_new = new if visible(new, now) else None
        every = (FeedKind.ALL, "")
        left = {every, *((kind, slug) for kind, slug, _ in before)} if shown_old is not None else set()
        entered = {every, *((kind, slug) for kind, slug, _ in after)} if shown_new is not None else set()
        for key in left | entered:
            touched.setdefault(key, []).append(
                (shown_old if key in left else None, shown_new if key in entered else None)
            )
        if new.cancelled and new.modified is not None and shown_new is not None:
            ends = new.modified + CANCELLED_GRACE
            until = ends if until is None else min(until, ends)
    made_members: dict[Key, Members] = {}
    for key, swaps in touched.items():
        found = previous.members.get(key, ())
        if isinstance(found, Chunked):
            for gone, come in swaps:
                if gone is not None:
                    found = found.removed(gone, _order)
                if come is not None:
                    found = found.inserted(come, _order)
            made_members[key] = found
            continue
        group = list(found)
        for gone, come in swaps:
            if gone is not None:
                _remove(group, gone)
            if come is not None:
                insort(group, come, key=_order)
        made_members[key] = members_of(group)
    shared = previous.members if isinstance(previous.members, Overlay) else Overlay(dict(previous.members))
    members = shared.updated(made_members.items())
    ended: set[Key] = set()
    if unnamed:
        if len(members.get((FeedKind.ALL, ""), ())) != size:
            return None  # a session not shown may name the feed: only every session can tell
        for key in unnamed:
            held = [
                name for s in members.get(key, ()) for kind, slug, name in places(s, conference) if (kind, slug) == key
            ]
            if held:
                names[key] = min(held)
            else:
                names.pop(key, None)
                ended.add(key)
    renamed = {key: name for key, name in names.items() if key not in index or specs_before[index[key]].name != name}
    if not renamed and not ended:
        return Catalogue(specs_before, members, until, index, frozenset(touched))
    made = {key: spec_of(conference, key[0], key[1], name) for key, name in renamed.items()}
    specs = [made.pop((spec.kind, spec.slug), spec) for spec in specs_before if (spec.kind, spec.slug) not in ended]
    # New feeds in the catalogue's order: the whole conference first, then by kind and slug.
    specs = [specs[0], *sorted([*specs[1:], *made.values()], key=lambda s: (_ORDER[s.kind], s.slug))]
    return dataclasses.replace(
        Catalogue.of(tuple(specs), members, until), touched=frozenset({*touched, *renamed, *ended})
    )


def _held(
    place: tuple[FeedKind, str, str],
    members: Mapping[Key, Members],
    changed: set[str],
    conference: Conference,
) -> bool:
    """Whether a session shown before and unchanged has `place` too: then the feed keeps its
    name (usually the first one looked at: a day's, a track's sessions share its name)."""
    kind, slug, _ = place
    return any(s.id not in changed and place in places(s, conference) for s in members.get((kind, slug), ()))


def _order(session: Session) -> tuple[datetime, str]:
    return session.start, session.id


def _remove(group: list[Session], session: Session) -> None:
    """Take `session` (by identity) out of `group`, sorted by `_order`."""
    at = bisect_left(group, _order(session), key=_order)
    while at < len(group) and group[at] is not session:
        at += 1
    if at < len(group):
        del group[at]
    else:  # not where its order says: the previous snapshot's own order is the same, so never
        group.remove(session)
