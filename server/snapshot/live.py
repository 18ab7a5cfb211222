"""Keeps the served snapshots in step with the store, without a restart, one per conference.

The store's `changes()` is cheap, so a background task polls it every half second (`--poll`) and,
when they moved (an ingest or a removal), asks the store which conferences changed (each has its
own latest version) and builds a new `Published` for those only, in a worker thread; the map of
snapshots is swapped in with one assignment, and requests in flight keep the snapshot they started
with. Snapshots are built lazily (no feed rendered) and swapped in at once; `warm()` then renders
their feeds in a worker thread, while requests are already answered (a feed asked for first is
rendered for its request, also in a worker thread: server.snapshot.feed_renders). So a
10,000-session conference is served a second after start and after each ingest. A conference's
snapshot is never rebuilt for another conference's ingest, so nothing it serves changes (ETags
included). A snapshot is also rebuilt now and then without a change, because dropping cancelled
sessions after their grace period depends on the clock (unchanged feeds keep their bytes either
way).

The *default* conference, served at the root paths as well as under its own base, is the one
`serve --default` names, else the one ingested first (`Store.default_conference`).

One server may hold a thousand conferences, most of them asked for now and then. Only the
default conference's snapshot is made at start and kept; any other is made when a request first
asks for it (`current`), kept in step with the store like the default's while it is asked for,
and let go when nothing asked for it for `idle` seconds or when more than `keep` snapshots are
held (the least recently asked for first). So start-up and memory follow the conferences people
ask for, not the store's size; a conference let go is read again, in one query, when asked for.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Protocol, TypeVar

import anyio
import anyio.to_thread

from feeds.model import Schedule, Session
from server.errors import ServerError
from server.links import ConferenceLinks, OtherConferences, Site, calendar_base
from server.snapshot.api import conferences_representation
from server.snapshot.conditional import Representation
from server.snapshot.published import Published
from server.store.changelog_since import Before
from server.store.changes import VersionChanges
from server.store.report import ConferenceSummary
from server.store.store import Since

log = logging.getLogger("confcal.serve")

REBUILD_AFTER = timedelta(hours=1)
# A conference's snapshot not asked for in this many seconds is let go (not the default's).
IDLE = 600.0
# At most this many snapshots besides the default's: a crawler walking every conference of a
# large store must not hold them all (a 200-session conference's snapshot, its feeds rendered,
# is a few MiB).
KEEP = 128
# Roots (base URLs) a `Served` keeps what it made for.
_ROOTS = 8
_T = TypeVar("_T")


class ScheduleStore(Protocol):
    """What the server needs of server.store.Store."""

    def live(self, conference: str | None = None) -> Schedule | None: ...

    def read_since(
        self, previous: Schedule, since: int, known: Mapping[str, Session] | None = None
    ) -> Since | None: ...

    def version(self) -> int: ...

    def changes(self) -> tuple[int, int]: ...

    def conferences(self) -> tuple[ConferenceSummary, ...]: ...

    def changelog(  # server/pages/changes.py
        self, conference: str, given: Before | None = None
    ) -> tuple[VersionChanges, ...]: ...


class NothingPublished(ServerError):
    """The store holds no schedule yet, or not the default one (answered 503)."""


class NoSuchConference(ServerError):
    """A `/c/{slug}/...` path names a conference the store does not hold (answered 404)."""


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Made:
    """What the `Served` of one list of conferences made of it, per root (base URL), when first
    asked: every conference's link (each page's links to the others then name this list and
    the page's conference, not a link made per conference per request) and `/api/conferences`
    (its inputs would otherwise be hashed, conference by conference, at every request)."""

    links: dict[str, ConferenceLinks] = field(default_factory=dict)
    api: dict[str, Representation] = field(default_factory=dict)
    by_slug: dict[str, ConferenceSummary] | None = None  # the list by slug, for any root


def _per_root(made: dict[str, _T], root: Site, make: Callable[[], _T]) -> _T:
    found = made.get(root.base_url)
    if found is None:
        # Without --base-url the root follows the request's Host header: a few roots are kept,
        # never one per name a client sends.
        if len(made) >= _ROOTS:
            made.clear()
        found = made[root.base_url] = make()
    return found


@dataclass(frozen=True)
class Served:
    """What the server publishes at one moment: a snapshot per conference, the store's list of
    conferences (for `/api/conferences` and the page's links to the others), and the default.
    `made` is shared by the `Served` that follow with the same list (a snapshot loaded or let go)."""

    snapshots: Mapping[str, Published]
    summaries: tuple[ConferenceSummary, ...] = ()
    default: str | None = None
    made: _Made = field(default_factory=_Made, repr=False, compare=False)

    def others(self, this: str | None, root: Site) -> OtherConferences:
        """The links to every conference but `this` under `root`."""
        return _per_root(self.made.links, root, partial(ConferenceLinks.of, self.summaries, root)).others(this)

    def conferences(self, root: Site) -> Representation:
        """`/api/conferences` under `root`."""
        return _per_root(self.made.api, root, partial(conferences_representation, self.summaries, root))

    def summary(self, slug: str) -> ConferenceSummary | None:
        """The store's summary of the conference `slug`, if the list holds it."""
        made = self.made
        if made.by_slug is None:
            made.by_slug = {c.slug: c for c in self.summaries}
        return made.by_slug.get(slug)


class Live:
    """The current snapshots for a store; `refresh()` is thread-safe and idempotent."""

    def __init__(
        self,
        store: ScheduleStore,
        *,
        base_url: str | None = None,
        default: str | None = None,
        seed: Callable[[], None] | None = None,
        clock: Callable[[], datetime] = utc_now,
        rebuild_after: timedelta = REBUILD_AFTER,
        idle: float = IDLE,
        keep: int = KEEP,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.base_url = base_url
        self._default = default
        self._seed = seed
        self._clock = clock
        self._rebuild_after = rebuild_after
        self._idle, self._keep, self._timer = idle, keep, timer
        self._lock = threading.Lock()
        # One load at a time per conference: requests arriving together for a cold conference
        # wait for one read of it, and a load holds up neither the others nor `refresh`.
        self._loads: dict[str, threading.Lock] = {}
        self._served = Served({}, default=default)
        self._changes: tuple[int, int] | None = None  # the store's `changes()` at the last refresh
        self._refreshes = 0  # refreshes begun: requests for unknown slugs share one (`current`)
        self._versions: dict[str, int] = {}
        self._cold: list[Published] = []

    @property
    def timer(self) -> Callable[[], float]:
        """The clock a snapshot's `used` is read on (monotonic seconds)."""
        return self._timer

    @property
    def served(self) -> Served:
        return self._served

    def snapshot(self, conference: str | None = None) -> Published | None:
        """The current snapshot of `conference` (default: the default one), or None."""
        served = self._served
        slug = conference if conference is not None else served.default
        found = None if slug is None else served.snapshots.get(slug)
        if found is not None:
            found.used = self._timer()
        return found

    def current(self, conference: str | None = None) -> Published:
        """The snapshot of `conference` (default: the default one), made now if it is not held
        (refreshing once for a conference this process has not heard of yet); NothingPublished
        for the default before any ingest, NoSuchConference for a slug the store does not hold."""
        asked = self._refreshes
        found = self.snapshot(conference)
        if found is None:
            slug = conference if conference is not None else self._served.default
            if slug is None or self._served.summary(slug) is None:
                self._refresh_since(asked)
                slug = conference if conference is not None else self._served.default
            found = None if slug is None else self.load(slug)
        if found is not None:
            return found
        if conference is None:
            raise NothingPublished("no schedule has been ingested yet")
        raise NoSuchConference(f"no conference {conference!r}")

    def refresh(self) -> bool:
        """Rebuild the snapshots of conferences whose version moved (or whose snapshot is old);
        True if any was swapped."""
        with self._lock:
            return self._refresh()

    def _refresh_since(self, asked: int) -> None:
        """Refresh unless one began after `asked` refreshes had (and so has ended, as it held the
        lock): requests for slugs not heard of, arriving while one store read runs, share the
        next rather than queue one each behind it."""
        with self._lock:
            if self._refreshes == asked:
                self._refresh()

    def _refresh(self) -> bool:
        """`refresh`, with the lock held."""
        self._refreshes += 1
        changes = self.store.changes()
        now = self._clock()
        old = self._served.snapshots
        stale = any(now - p.now >= self._rebuild_after for p in old.values())
        if changes == self._changes and not stale:
            return False
        if changes[0] == 0 and self._seed is not None:
            self._seed()
            changes = self.store.changes()
        summaries = self.store.conferences()
        default = self._default or (summaries[0].slug if summaries else None)
        present = {c.slug for c in summaries}
        if default is not None and summaries and default not in present:
            # Not fatal: a source may bring it in later; the root answers 503 until then.
            log.warning("default conference %r is not in the store yet", default)
        # A conference removed from the store (`confcal conference remove`) is served no more.
        snapshots = {slug: published for slug, published in old.items() if slug in present}
        changed = len(snapshots) != len(old)
        for summary in summaries:
            previous = snapshots.get(summary.slug)
            if previous is None and summary.slug != default:
                continue  # made when asked for (`load`)
            if (
                previous is not None
                and self._versions.get(summary.slug) == summary.version
                and now - previous.now < self._rebuild_after
            ):
                continue
            known = self._versions.get(summary.slug)
            # Only the rows later versions wrote are read; unchanged sessions stay the objects
            # the previous snapshot holds (server.store.Store.read_since), and only the feeds
            # of the sessions read are made again.
            written = None
            if previous is not None and known is not None:
                found = self.store.read_since(previous.schedule, known, previous.sessions_by_id)
                schedule, written = (None, None) if found is None else (found.schedule, found.written)
            else:
                schedule = self.store.live(summary.slug)
            if schedule is None:
                continue
            published = Published(
                schedule,
                now=now,
                base_url=calendar_base(self.base_url, summary.slug, default),
                previous=previous,
                lazy=True,
                written=written,
                version=summary.version,
            )
            published.used = previous.used if previous is not None else self._timer()
            snapshots[summary.slug] = published
            self._cold.append(published)
            self._versions[summary.slug] = summary.version
            changed = True
            log.info(
                "published %s version %s: %d sessions",
                summary.slug,
                summary.version,
                len(schedule.sessions),
            )
        self._served = Served(snapshots, summaries, default)
        self._changes = changes
        return changed

    def load(self, slug: str) -> Published | None:
        """The snapshot of the conference `slug`, read from the store now unless it is held;
        None when the store does not hold it (as of the last `refresh`)."""
        if self._served.summary(slug) is None:
            return None  # before a lock is made for it: a client may invent slugs without end
        with self._lock:
            lock = self._loads.setdefault(slug, threading.Lock())
        with lock:
            found = self.snapshot(slug)
            if found is not None:
                return found
            summary = self._served.summary(slug)
            if summary is None:
                return None
            # The version before the rows: an ingest landing in between is read again by the
            # next `refresh` (rows after this version), never missed.
            schedule = self.store.live(slug)
            if schedule is None:
                return None
            published = Published(
                schedule,
                now=self._clock(),
                base_url=calendar_base(self.base_url, slug, self._served.default),
                lazy=True,
                version=summary.version,
            )
            published.used = self._timer()
            with self._lock:
                served = self._served
                if slug in served.snapshots:
                    return served.snapshots[slug]
                self._served = Served(
                    {**served.snapshots, slug: published}, served.summaries, served.default, served.made
                )
                self._versions[slug] = summary.version
                self._cold.append(published)
            log.info("loaded %s version %s: %d sessions", slug, summary.version, len(schedule.sessions))
            self._let_go()
            return published

    def _let_go(self, *, idle: bool = False) -> int:
        """Let go of the snapshots beyond `keep` (least recently asked for first) and, with `idle`,
        of those not asked for in `idle` seconds; never the default's. How many it let go."""
        with self._lock:
            served = self._served
            others = sorted(
                ((p.used, slug) for slug, p in served.snapshots.items() if slug != served.default), reverse=True
            )
            oldest = self._timer() - self._idle
            gone = {slug for used, slug in others[self._keep :]}
            if idle:
                gone |= {slug for used, slug in others if used < oldest}
            if not gone:
                return 0
            kept = {slug: p for slug, p in served.snapshots.items() if slug not in gone}
            self._served = Served(kept, served.summaries, served.default, served.made)
            for slug in gone:
                self._versions.pop(slug, None)
            held = {id(p) for p in kept.values()}
            self._cold = [p for p in self._cold if id(p) in held]
        log.info("let go of %d idle snapshot(s): %s", len(gone), ", ".join(sorted(gone)))
        return len(gone)

    def let_go_idle(self) -> int:
        """Let go of the snapshots no request asked for in `idle` seconds (not the default's);
        how many. The watcher calls it after each poll."""
        return self._let_go(idle=True)

    def warm(self) -> None:
        """Render the feeds of the snapshots `refresh` or `load` swapped in since the last call."""
        with self._lock:
            cold, self._cold = self._cold, []
        for published in cold:
            published.warm()

    async def watch(self, interval: float) -> None:
        """Poll forever (until cancelled); a failing poll is logged and retried, never fatal."""
        while True:
            try:
                await anyio.to_thread.run_sync(self.warm)
            except Exception:  # a bug in rendering one feed must not stop the polling
                log.exception("rendering the published feeds failed; they render on request")
            await anyio.sleep(interval)
            try:
                await anyio.to_thread.run_sync(self.refresh)
            except Exception:  # a store hiccup must not stop the server from serving what it has
                log.exception("refreshing the published schedule failed; keeping the current one")
            self.let_go_idle()
