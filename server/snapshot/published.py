"""An immutable snapshot of everything the server publishes for one revision of the schedule.

A `Published` is built from a `Schedule` off the request path (at start-up and whenever the store
changes) and then only read. It shares one `EventCache` with the snapshot before it, so a VEVENT is
rendered once per session revision, and it takes over the previous snapshot's representation of any
feed whose content is unchanged: that feed keeps its exact bytes, ETag and gzip variant.

A `lazy` snapshot renders no feed up front: each catalogue feed is rendered on first use and kept,
and `warm()` renders the ones not used yet, the whole conference's first. The server builds its
snapshots lazily and warms them after swapping them in, so it answers as soon as the schedule is
read (the thousands of feeds of a large conference take seconds to render); a lazy
snapshot takes over the previous one's feed objects whose sessions are the same, compared by
identity first (server.store.Store.read_since keeps unchanged sessions as the same objects)
rather than by hashing every session of every feed. The bytes, and so the ETags, do not depend on
when a feed is rendered, in which process, or after how many restarts.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import TypeVar, cast

from feeds import urls
from feeds.catalogue import FeedKind, FeedSpec, catalogue, partition, visible_until
from feeds.ical import EventCache, render_calendar, render_session
from feeds.model import Conference, Schedule, Session
from feeds.query import FeedQuery, feed_title, select
from feeds.slug import slugify
from server.snapshot.conditional import CALENDAR, Representation
from server.snapshot.large_feeds import Handover, render_large
from server.snapshot.patch import Catalogue, changed_sessions, members_of, patched
from server.snapshot.persistent import Chunked, Overlay, same_items

# Filtered feeds (?track=…&level=…) are rendered on demand; keep the recent ones.
_FILTERED_KEEP = 256
# Per-base-URL documents (API, index): a base URL comes from the Host header unless configured,
# so bound the memo against a client inventing hosts.
_MEMO_KEEP = 64
# Personal feeds by content: a few thousand attendees' sets (tens of KiB each, gzip included).
_PERSONAL_KEEP = 2048
# The bytes of a conference's catalogue feeds kept rendered (Rendered): the whole conference's
# feed of a large conference and a few more. The event cache holds every event, so a feed let go
# is made again by joining cached bytes, at memory speed; beyond that its kept bytes buy little
# and are the largest part of a large conference's server.
FEED_BYTES = 48 * 2**20

T = TypeVar("T")
_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")

# The alarm (minutes, or None) is part of a calendar's content: `?alarm=` variants never share
# a representation with the plain feed.
_ContentKey = tuple[Conference, str, tuple[Session, ...], int | None]


class Feed:
    """A catalogue feed; its calendar is made by `make` on first use (at once unless the snapshot
    is `lazy`) and kept. Each feed has its own lock, so however many threads ask for a feed at
    once it is rendered once (`renders` counts them), and a feed being rendered (all.ics of a
    large conference takes half a second) holds up no other feed; functools.cached_property
    took one lock for every feed of every snapshot in Python 3.11, and none from 3.12 on.

    A lazy feed counts its bytes in its conference's `Rendered`, which lets go of the bytes of
    feeds not asked for lately past its limit: the feed is then made again when asked for, with
    the same bytes and ETag (from the event cache, a fraction of the first render).

    `members` are the feed's sessions as the catalogue holds them (chunks shared with the
    previous snapshot's feed for a large feed); `sessions` makes them one tuple when first
    asked for, so making a snapshot never copies a large feed's sessions."""

    __slots__ = (
        "_lock",
        "handover",
        "_rendered",
        "_representation",
        "_sessions",
        "make",
        "members",
        "path",
        "renders",
        "spec",
        "used",
    )

    def __init__(
        self,
        spec: FeedSpec,
        path: str,
        sessions: Sequence[Session],
        make: Callable[[], Representation],
        rendered: Rendered | None = None,
    ) -> None:
        self.spec = spec
        self.path = path
        self.members = sessions
        self._sessions = sessions if isinstance(sessions, tuple) else None
        # A large feed's parts for the feed replacing it (server.snapshot.large_feeds).
        self.handover: Handover | None = None
        self.make = make
        self.renders = 0
        self.used = False
        self._rendered = rendered
        self._representation: Representation | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Feed({self.spec!r}, {self.path!r}, {len(self.members)} sessions)"

    @property
    def sessions(self) -> tuple[Session, ...]:
        found = self._sessions
        if found is None:  # two threads may both make it: the same tuple's items either way
            found = self._sessions = tuple(self.members)
        return found

    @property
    def representation(self) -> Representation:
        """The feed as served, made by the first caller (blocking: on the event loop only once
        `rendered`; server.snapshot.feed_renders renders it in a worker thread)."""
        self.used = True
        rep = self._representation
        if rep is None:
            with self._lock:
                rep = self._representation
                made = rep is None
                if rep is None:
                    rep = self._representation = self.make()
                    self.renders += 1
            if made and self._rendered is not None:
                # Outside the feed's lock: letting go of others takes no lock of theirs.
                self._rendered.add(self, len(rep.body))
        return rep

    def warm(self) -> bool:
        """Make the bytes if they fit in the room `rendered` has left, without letting go of any
        other feed's; whether they did (or were made already). Bytes that do not fit are not
        kept: a request makes them again, the same."""
        with self._lock:
            if self._representation is not None:
                return True
            rep = self.make()
            self.renders += 1
            if self._rendered is None or self._rendered.add_within(self, len(rep.body)):
                self._representation = rep
                return True
            self.let_go()  # the parts a large feed keeps for its successor too
            self._rendered.forget((self,))
            return False

    def superseded(self) -> None:
        """A snapshot serving this feed's successor is current: drop the bytes (a large feed's
        parts stay in its handover until the successor takes them over). A request begun
        before that asks for it again gets it made again, the same."""
        self._representation = None
        if self._rendered is not None:  # counted again if such a request made it meanwhile
            self._rendered.forget((self,))

    def made(self) -> Representation | None:
        """The representation if it is made (and kept), else None; never renders, so the event
        loop may call it (a feed let go between a `rendered` check and its use would render)."""
        rep = self._representation
        if rep is not None:
            self.used = True
        return rep

    @property
    def rendered(self) -> bool:
        return self._representation is not None

    def let_go(self) -> None:
        """Drop the bytes; the next use makes them again, the same."""
        self._representation = None
        if self.handover is not None:
            self.handover.drop()


class Rendered:
    """The lazy feeds of a conference holding their bytes, oldest first, within `limit` bytes in
    all: past it the oldest not asked for since the last sweep is let go (a feed asked for gets
    another round: the clock algorithm, so a request only sets a flag). A large conference's
    feeds together are several times its all.ics (each session is in its day's, room's, track's,
    level's, kind's and every speaker's feed), and most are asked for rarely if ever, so keeping
    them all would make the server's memory grow with the conference. The whole conference's
    feed is let go like any other."""

    def __init__(self, limit: int = FEED_BYTES) -> None:
        self.limit = limit
        self.size = 0
        self._feeds: OrderedDict[Feed, int] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, feed: Feed, size: int) -> None:
        gone: list[Feed] = []
        with self._lock:
            self._count(feed, size)
            for _ in range(2 * len(self._feeds)):  # every feed at most twice: one second chance
                if self.size <= self.limit or len(self._feeds) <= 1:
                    break
                oldest, bytes_ = self._feeds.popitem(last=False)
                if oldest.used and oldest is not feed:
                    oldest.used = False
                    self._feeds[oldest] = bytes_
                    continue
                if oldest is feed:
                    self._feeds[oldest] = bytes_
                    continue
                self.size -= bytes_
                gone.append(oldest)
        for old in gone:
            old.let_go()

    def add_within(self, feed: Feed, size: int) -> bool:
        """Count `feed`'s `size` bytes only if they fit in the limit as it is; never lets go of
        another feed. Whether they did."""
        with self._lock:
            if self.size + size - self._feeds.get(feed, 0) > self.limit:
                return False
            self._count(feed, size)
            return True

    def _count(self, feed: Feed, size: int) -> None:
        """`feed`'s bytes counted as the newest (under the lock)."""
        self.size += size - self._feeds.pop(feed, 0)
        self._feeds[feed] = size
        feed.used = False

    def forget(self, feeds: Iterable[Feed]) -> None:
        """No longer count `feeds` (a new snapshot replaced them): their bytes go with the
        snapshots that hold them, and must not keep feeds in use out of the limit meanwhile."""
        with self._lock:
            for feed in feeds:
                self.size -= self._feeds.pop(feed, 0)


class Published:
    """Every catalogue feed (rendered, or made on first use when `lazy`), plus memoized on-demand
    documents; safe to share across threads."""

    _feeds_by_name: Overlay[tuple[str, str], Feed]
    _feed_list: Chunked[Feed]
    _feeds: tuple[Feed, ...] | None
    _sessions: Overlay[str, Session]
    rendered: Rendered
    catalogue: Catalogue

    def __init__(
        self,
        schedule: Schedule,
        *,
        now: datetime,
        base_url: str | None = None,
        cache: EventCache | None = None,
        previous: Published | None = None,
        lazy: bool = False,
        written: Iterable[Session] | None = None,
        rendered: Rendered | None = None,
        documents: bool = True,
        known: Catalogue | None = None,
        version: int | None = None,
    ) -> None:
        """`written`, with a `previous`: the only sessions of `schedule` that may not be the
        previous snapshot's own objects (server.store.Store.read_since names them), so that
        publishing a change costs what the change touches and not a pass over every session
        and feed. `rendered`: where lazy feeds count their bytes (default: the previous
        snapshot's, else a new one of FEED_BYTES). `documents`: whether `memo` keeps the documents
        it makes (Representations) for the next ask; a static build asks for each once, and the
        pages listing a whole kind are tens of megabytes each in a large conference.
        `known`: the catalogue, with the feeds' members as `partition` makes them from `schedule` at `now`, when
        the caller has them without a previous snapshot (a static build patches the last build's).
        `version`: the conference's version in the store when `schedule` was read (None: unknown)."""
        self.schedule = schedule
        self.version = version
        self.now = now
        self.base_url = base_url
        self.cache: EventCache = cache if cache is not None else (previous.cache if previous else EventCache())
        # Shared along a conference's snapshots, as the feeds they take over are.
        if rendered is None:
            rendered = previous.rendered if previous is not None else Rendered()
        self.rendered = rendered
        inherited = previous._by_content if previous is not None and previous.base_url == base_url else {}
        self._by_content: dict[_ContentKey, Representation] = {}
        same_content = (
            previous is not None and previous.base_url == base_url and previous.conference == schedule.conference
        )
        held = previous._feeds_by_name if lazy and previous is not None and same_content else {}
        made = None
        changes: list[tuple[Session | None, Session]] | None = None
        if held and previous is not None:
            # The feeds the changed sessions were and are in, made again; the others kept (patch.py).
            changes = changed_sessions(previous._sessions, schedule.sessions if written is None else written)
            made = patched(previous.catalogue, previous.now, changes, schedule.conference, now, len(schedule.sessions))
        if made is None:
            made = known
        if made is None:
            # One pass over the sessions for every feed's members (not one select per feed).
            members = partition(schedule, now=now)
            made = Catalogue.of(
                tuple(catalogue(schedule)),
                Overlay({key: members_of(group) for key, group in members.items()}),
                visible_until(schedule, now),
            )
        self.catalogue = made
        self._replaced: tuple[Feed, ...] = ()
        if previous is not None and made.touched is not None and made.specs is previous.catalogue.specs:
            # No feed renamed, added or ended: the previous snapshot's feeds in place, those of
            # the changed sessions made again; the feeds' sequence and map share the rest.
            by_place: dict[int, Feed] = {}
            replaced = []
            for key in made.touched:
                at = made.index[key]
                old = previous._feed_list[at]
                feed = by_place[at] = self._feed(made.specs[at], made.members.get(key, ()), inherited, held, lazy)
                if feed is not old:
                    replaced.append(old)
            self._feed_list = previous._feed_list.replaced(by_place)
            self._feeds_by_name = previous._feeds_by_name.updated(
                ((f.spec.kind.value, f.spec.slug), f) for f in by_place.values()
            )
            self.rendered.forget(replaced)
            # The feeds replaced stay in the map's shared base, out of sight, as long as a later
            # snapshot shares it: their bytes are let go once this snapshot is served (`warm`),
            # or they would outlive every snapshot serving them, uncounted.
            self._replaced = tuple(replaced)
            self._count_handed_over(by_place.values())
        else:
            feeds = [
                self._feed(spec, made.members.get((spec.kind, spec.slug), ()), inherited, held, lazy)
                for spec in made.specs
            ]
            self._feed_list = Chunked.of(feeds)
            self._feeds_by_name = Overlay({(f.spec.kind.value, f.spec.slug): f for f in feeds})
            if previous is not None and previous.rendered is self.rendered:
                kept = {id(f) for f in feeds}
                self.rendered.forget(f for f in previous._feed_list if id(f) not in kept)
            self._count_handed_over(feeds)
        self._feeds = None
        if previous is not None and written is not None and changes is not None:
            self._sessions = previous._sessions.updated((new.id, new) for _, new in changes)
        else:
            self._sessions = Overlay({s.id: s for s in schedule.sessions})
        self._lock = threading.Lock()
        self._filtered: OrderedDict[FeedQuery, Representation] = OrderedDict()
        self._filtered_bytes = 0
        self._memo: OrderedDict[Hashable, object] = OrderedDict()
        self._documents = documents
        self._personal: OrderedDict[Hashable, Representation] = OrderedDict()
        self._downloads: dict[str, Representation] = {}
        # When a request last asked for this snapshot (the server's monotonic clock): a server
        # of many conferences lets go of the idle ones (server.snapshot.live).
        self.used = 0.0

    @property
    def conference(self) -> Conference:
        return self.schedule.conference

    def _count_handed_over(self, feeds: Iterable[Feed]) -> None:
        """Count the previous bodies new large feeds hold until rendered (server.snapshot.large_feeds)
        as theirs: the feeds they replace no longer count, and past the limit they are let go."""
        for feed in feeds:
            held = 0 if feed.handover is None or feed.rendered else feed.handover.held()
            if held:
                self.rendered.add(feed, held)

    @property
    def feeds(self) -> tuple[Feed, ...]:
        """Every catalogue feed in the catalogue's order (made one tuple when first asked for:
        a new version's snapshot shares the previous one's chunks of feeds instead)."""
        found = self._feeds
        if found is None:
            found = self._feeds = tuple(self._feed_list)
        return found

    def feeds_of(self, kind: FeedKind) -> tuple[Feed, ...]:
        """The catalogue feeds of `kind`, in the catalogue's order: grouped once, since pages,
        filters and the build each ask for one kind's feeds among every speaker's."""

        def grouped() -> dict[FeedKind, tuple[Feed, ...]]:
            found: dict[FeedKind, list[Feed]] = {}
            for feed in self.feeds:
                found.setdefault(feed.spec.kind, []).append(feed)
            return {of: tuple(feeds) for of, feeds in found.items()}

        return self.memo(("feeds by kind",), grouped).get(kind, ())

    def _feed(
        self,
        spec: FeedSpec,
        sessions: Sequence[Session],
        inherited: dict[_ContentKey, Representation],
        held: Mapping[tuple[str, str], Feed],
        lazy: bool,
    ) -> Feed:
        title = feed_title(self.conference, spec)
        if lazy:
            # `confcal build` renders only the feeds whose content its record does not know; the
            # server renders them after the snapshot is swapped in (`warm`). The same conference,
            # base URL, spec and sessions as a feed held before: the same bytes, rendered or not.
            same = held.get((spec.kind.value, spec.slug)) if held else None
            if same is not None and same.spec == spec and same_items(same.members, sessions):
                return same
            # The maker holds what the bytes depend on, never this snapshot: a feed taken over by
            # later snapshots must not keep this one (and its memoized documents) alive.
            # By its type, not isinstance: an abstract base class's check costs a call in
            # Python, once for every feed of every snapshot.
            if type(sessions) is Chunked:
                # Made from the chunks the feed it replaces holds rendered, and the changed ones.
                handover = Handover(None if same is None else same.handover)
                large = partial(render_large, self.conference, self.base_url, self.cache, title, sessions, handover)
                feed = Feed(spec, urls.feed(spec), sessions, large, self.rendered)
                feed.handover = handover
                return feed
            make = partial(_render, self.conference, self.base_url, self.cache, title, sessions, None)
            return Feed(spec, urls.feed(spec), sessions, make, self.rendered)
        whole = tuple(sessions)
        rep = self._calendar(title, whole, inherited)
        return Feed(spec, urls.feed(spec), whole, partial(_same, rep))

    def warm(self) -> None:
        """Render the catalogue feeds not rendered yet, the whole conference's first (the server
        calls this in a worker thread once the snapshot is being served), into the room left in
        `rendered`'s limit, up to the first that does not fit: the others are made when asked
        for. Warming never pushes a feed out, so the feeds requests keep asking for stay."""
        replaced, self._replaced = self._replaced, ()
        for old in replaced:
            old.superseded()
        for feed in self._feed_list:
            if not feed.warm():
                break

    def _calendar(
        self,
        title: str,
        sessions: tuple[Session, ...],
        inherited: dict[_ContentKey, Representation],
        *,
        remember: bool = True,
        alarm: int | None = None,
    ) -> Representation:
        """The calendar of `sessions`, reusing an equal one already rendered; `remember=False`
        (filtered feeds, unbounded in number) keeps it out of what the next snapshot inherits."""
        key: _ContentKey = (self.conference, title, sessions, alarm)
        rep = self._by_content.get(key) or inherited.get(key)
        if rep is None:
            rep = _render(self.conference, self.base_url, self.cache, title, sessions, alarm)
        if remember:
            self._by_content[key] = rep
        return rep

    def feed(self, kind: str, slug: str = "") -> Feed | None:
        """The catalogue feed of `kind` ("all", "track", ...) and `slug` ("" for "all")."""
        return self._feeds_by_name.get((kind, slug))

    def filtered(self, feed: Feed, items: list[tuple[str, str]]) -> Representation:
        """`feed` narrowed by query parameters, with a reminder per event for `alarm=`; raises
        feeds.errors.FilterError for unknown parameters and AlarmError for a bad alarm."""
        query = key = FeedQuery.from_params(items).for_spec(feed.spec)
        found = self._held(self._filtered, key)
        if found is not None:
            return found
        if replace(query, alarm=None) == FeedQuery().for_spec(feed.spec):
            # Only a reminder asked for: the feed's own sessions and title.
            sessions, title = feed.sessions, feed_title(self.conference, feed.spec)
        else:
            sessions = tuple(select(self.schedule, query, now=self.now))
            title = feed_title(self.conference, query, schedule=self.schedule)
        rep = self._calendar(title, sessions, {}, remember=False, alarm=query.alarm)
        with self._lock:
            self._filtered[key] = rep
            self._filtered_bytes += len(rep.body)
            # Bounded in bytes as well as in number: at a large conference each `?alarm=` variant
            # of all.ics is as large as all.ics, and any client may ask for a few hundred.
            limit = self.rendered.limit // 4
            while len(self._filtered) > _FILTERED_KEEP or (self._filtered_bytes > limit and len(self._filtered) > 1):
                _, old = self._filtered.popitem(last=False)
                self._filtered_bytes -= len(old.body)
        return rep

    def filtered_held(self, feed: Feed, items: list[tuple[str, str]]) -> Representation | None:
        """`filtered`'s answer when it is held, None when it would be made; raises as it does."""
        # Frozen, so hashable: equal filters share one rendering.
        return self._held(self._filtered, FeedQuery.from_params(items).for_spec(feed.spec))

    def session(self, session_id: str) -> Session | None:
        return self._sessions.get(session_id)

    @property
    def sessions_by_id(self) -> Mapping[str, Session]:
        """Every session of the schedule by id (read only)."""
        return self._sessions

    def session_download(self, session: Session) -> Representation:
        """One VEVENT as an attachment, with the same UID as in the feeds (feeds.ical.uid)."""
        with self._lock:
            found = self._downloads.get(session.id)
        if found is not None:
            return found
        filename = f"{slugify(session.title)}.ics"
        rep = Representation(
            self.download_body(session),
            CALENDAR,
            last_modified([session]),
            (("content-disposition", f'attachment; filename="{filename}"'),),
        )
        with self._lock:
            # Bounded by the number of sessions in this snapshot.
            self._downloads[session.id] = rep
        return rep

    def download_body(self, session: Session) -> bytes:
        """The bytes of `session_download(session)`, made and not kept (a static build writes
        each once, and holding them all grows with the conference)."""
        return render_session(self.conference, session, base_url=self.base_url, cache=self.cache)

    def memo(self, key: Hashable, make: Callable[[], T]) -> T:
        """`make()` once per key for this snapshot (bounded); used for per-base-URL documents."""
        with self._lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return cast(T, self._memo[key])
        value = make()
        if not self._documents and isinstance(value, Representation):
            return value
        with self._lock:
            self._memo[key] = value
            while len(self._memo) > _MEMO_KEEP:
                self._memo.popitem(last=False)
        return value

    def memoized(self, key: Hashable) -> object | None:
        """What `memo` made for `key`, if this snapshot still holds it: a route looks here in
        the event loop before handing the making to a worker thread, a hop that costs more than
        answering with a page already made."""
        return self._held(self._memo, key)

    def personal(self, key: Hashable) -> Representation | None:
        """The personal feed remembered under `key` (its content: the picked ids, the set's
        change time, the variant), so its bytes, ETag and gzip are made once, not per request."""
        return self._held(self._personal, key)

    def _held(self, kept: OrderedDict[_K, _V], key: _K) -> _V | None:
        """What `kept` holds for `key`, now its most recently used."""
        with self._lock:
            found = kept.get(key)
            if found is not None:
                kept.move_to_end(key)
            return found

    def remember_personal(self, key: Hashable, rep: Representation) -> Representation:
        with self._lock:
            self._personal[key] = rep
            while len(self._personal) > _PERSONAL_KEEP:
                self._personal.popitem(last=False)
        return rep


def _render(
    conference: Conference,
    base_url: str | None,
    cache: EventCache,
    title: str,
    sessions: Sequence[Session],
    alarm: int | None,
) -> Representation:
    body = render_calendar(conference, list(sessions), title=title, base_url=base_url, cache=cache, alarm=alarm)
    return Representation(body, CALENDAR, last_modified(sessions))


def _same(rep: Representation) -> Representation:
    return rep


def last_modified(sessions: Iterable[Session]) -> datetime | None:
    """The newest `modified` among the sessions: a content date, stable across restarts."""
    stamps = [s.modified for s in sessions if s.modified is not None]
    return max(stamps) if stamps else None
