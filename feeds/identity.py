"""Stable session ids across re-ingests.

Organisers edit sessions between snapshots: they fix a title typo, move a talk to another time or
room, swap two talks. Subscribed calendars key events by their UID (RFC 5545 §3.8.4.7), so a session
must keep its id through such edits or the calendar would show a deleted event plus a new one instead
of an update. Many sources carry an id of their own (pretalx code/guid, frab guid, iCalendar UID,
Sched event_key); a scraped Sched page carries none.

Matching rule
-------------
`assign_ids(incoming, previous)` pairs each incoming session with at most one previous session
(one-to-one), in stages. Each stage only looks at sessions no earlier stage paired:

0. same source id (`Session.source_id`), when that id names exactly one session on each side (a
   file that gives one UID to many events has no usable ids, and those sessions fall through);
1. same normalized title and same speaker set (covers: time moved, room moved, times swapped);
2. same non-empty speaker set and same start (covers: retitled, including typo fixes);
3. same start and same room (covers: retitled and speakers changed, e.g. a replaced speaker);
4. title similarity >= 0.8 (difflib ratio of the normalized titles) and either the same speaker
   set or the same start (covers: typo fixed *and* moved).

Stages 1-4 are the fallback for sources without ids, and for sessions whose source id is new or
shared. "Normalized title" is case-folded, accent-stripped, with runs of punctuation and spaces collapsed.
"Speaker set" is the set of speaker slugs. When a stage offers several candidates, pairs are taken
greedily, best first: closest start, then same room, then a previous session that is still
confirmed (over a cancelled one), then one with identical content, then the smaller id, so the
result never depends on input order. Previous cancelled sessions take part, so a session that
comes back gets its old id and is restored.

An unpaired incoming session gets a new id (`new_id`, the one function that makes session ids,
used by the merge for a schedule's provisional ids too): the first 10 hex digits of BLAKE2b over its
normalized title and UTC start, which is URL-safe, short, and the same if the store is rebuilt
from scratch. On a collision with any previous or already assigned id, a counter is mixed in.
The iCalendar UID is derived from this id and the conference slug (feeds.ical.uid).

The id map is persisted by the store (server.store): every session ever stored keeps its id and
its last content, cancelled ones included, and the next ingest is matched against all of them.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from feeds.model import Session, Status
from feeds.slug import fold

SIMILAR_TITLE = 0.8
ID_HEX_DIGITS = 10


def speaker_set(session: Session) -> frozenset[str]:
    return frozenset(speaker.slug for speaker in session.speakers)


def new_id(session: Session, attempt: int = 0) -> str:
    """A fresh id from the session's normalized title and UTC start (see module docstring)."""
    start = session.start.astimezone(UTC).isoformat()
    text = f"{fold(session.title)}\n{start}"
    if attempt:
        text += f"\n{attempt}"
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=ID_HEX_DIGITS // 2)
    return digest.hexdigest()


@dataclass(frozen=True)
class _Facts:
    """What matching compares, computed once per session."""

    title: str
    speakers: frozenset[str]
    start: datetime
    room: str | None
    source_id: str | None
    cancelled: bool
    id: str
    # Everything else a calendar shows, so that among otherwise equal candidates (a session
    # listed twice, say) each keeps the id of its exact previous self.
    rest: Hashable

    @classmethod
    def of(cls, s: Session) -> _Facts:
        room = s.room.slug if s.room is not None else None
        speakers = tuple((p.name, p.role, p.affiliation) for p in s.speakers)
        rest = (s.title, s.end, s.kind, s.track, s.level, s.description, speakers, s.slides, s.url)
        cancelled = s.status is Status.CANCELLED
        return cls(fold(s.title), speaker_set(s), s.start, room, s.source_id, cancelled, s.id, rest)


# Stages 1-3 pair sessions with equal keys; a None key never pairs.
_KeyFn = Callable[[_Facts], Hashable | None]


def _unique_source_ids(sessions: Sequence[Session]) -> set[str]:
    counts = Counter(s.source_id for s in sessions if s.source_id)
    return {sid for sid, n in counts.items() if n == 1}


def _key_title_speakers(f: _Facts) -> Hashable | None:
    return (f.title, f.speakers)


def _key_speakers_start(f: _Facts) -> Hashable | None:
    return (f.speakers, f.start) if f.speakers else None


def _key_start_room(f: _Facts) -> Hashable | None:
    return (f.start, f.room) if f.room is not None else None


def _similar_titles(a: _Facts, b: _Facts) -> bool:
    matcher = difflib.SequenceMatcher(None, a.title, b.title)
    # quick_ratio is an upper bound of ratio and far cheaper; most pairs stop there.
    return matcher.quick_ratio() >= SIMILAR_TITLE and matcher.ratio() >= SIMILAR_TITLE


def _preference(new: _Facts, old: _Facts) -> tuple[float, bool, bool, bool, str]:
    """Sort key among candidate pairs of one stage: smaller is better."""
    distance = abs((new.start - old.start).total_seconds())
    same_room = new.room is not None and new.room == old.room
    return (distance, not same_room, old.cancelled, new.rest != old.rest, old.id)


def _pairs_by_key(key: _KeyFn, incoming: dict[int, _Facts], previous: dict[int, _Facts]) -> set[tuple[int, int]]:
    by_key: dict[Hashable, list[int]] = defaultdict(list)
    for j, old in previous.items():
        k = key(old)
        if k is not None:
            by_key[k].append(j)
    return {(i, j) for i, new in incoming.items() if (k := key(new)) is not None for j in by_key.get(k, ())}


def _stage4(incoming: dict[int, _Facts], previous: dict[int, _Facts]) -> set[tuple[int, int]]:
    # Only pairs sharing the speaker set or the start can qualify; bucketing by those keeps
    # this far below comparing every title with every title.
    nearby = _pairs_by_key(lambda f: f.speakers or None, incoming, previous)
    nearby |= _pairs_by_key(lambda f: f.start, incoming, previous)
    return {(i, j) for i, j in nearby if _similar_titles(incoming[i], previous[j])}


def _pair_greedily(
    candidates: set[tuple[int, int]], incoming: dict[int, _Facts], previous: dict[int, _Facts]
) -> dict[int, int]:
    ranked = sorted(candidates, key=lambda ij: (_preference(incoming[ij[0]], previous[ij[1]]), ij[0]))
    pairs: dict[int, int] = {}
    taken: set[int] = set()
    for i, j in ranked:
        if i not in pairs and j not in taken:
            pairs[i] = j
            taken.add(j)
    return pairs


def match(incoming: Sequence[Session], previous: Sequence[Session]) -> dict[int, int]:
    """Pair incoming indexes with previous indexes by the staged rule of the module docstring."""
    todo_new = {i: _Facts.of(s) for i, s in enumerate(incoming)}
    todo_old = {j: _Facts.of(s) for j, s in enumerate(previous)}
    pairs: dict[int, int] = {}
    usable = _unique_source_ids(incoming) & _unique_source_ids(previous)

    def _key_source_id(f: _Facts) -> Hashable | None:
        return f.source_id if f.source_id in usable else None

    stages: list[_KeyFn | None] = [_key_source_id, _key_title_speakers, _key_speakers_start, _key_start_room, None]
    for key in stages:
        if not todo_new or not todo_old:
            break
        if key is None:
            candidates = _stage4(todo_new, todo_old)
        else:
            candidates = _pairs_by_key(key, todo_new, todo_old)
        for i, j in _pair_greedily(candidates, todo_new, todo_old).items():
            pairs[i] = j
            del todo_new[i], todo_old[j]
    return pairs


def assign_ids(incoming: Sequence[Session], previous: Sequence[Session]) -> tuple[Session, ...]:
    """Return `incoming` (same order) with ids of matched previous sessions, new ids otherwise.

    Only ids change; revision, modified and status are the store's business.
    """
    pairs = match(incoming, previous)
    ids: dict[int, str] = {i: previous[j].id for i, j in pairs.items()}
    taken = {s.id for s in previous} | set(ids.values())
    # Deterministic order for new ids, so collision counters do not depend on input order.
    fresh = sorted(
        (i for i in range(len(incoming)) if i not in ids),
        key=lambda i: (incoming[i].start, fold(incoming[i].title), incoming[i].id, i),
    )
    for i in fresh:
        attempt = 0
        candidate = new_id(incoming[i])
        while candidate in taken:
            attempt += 1
            candidate = new_id(incoming[i], attempt)
        taken.add(candidate)
        ids[i] = candidate
    return tuple(dataclasses.replace(s, id=ids[i]) for i, s in enumerate(incoming))
