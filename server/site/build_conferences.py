"""Every conference of a static build through one record, and `api/conferences` at the root.

A conference's files are made from its sessions and from a few things around them: the
conference's version in the store and when it was recorded (the version moves with every ingest
of the conference and names its changelog; a store made anew counts versions from 1 again), the
site's and the calendars' base URLs (the default conference's site is the root, where its copy
is), the links to the other conferences, and confcal's own code (`code_key`).
Those go into the conference's stamp. When the last build recorded the same stamp, and no
cancelled session's grace period ended since (the one way the clock changes what a schedule
shows: feeds.catalogue.visible_until), the conference's files are exactly what that build
wrote: they are carried over without reading the schedule from the store, rendering or keying
anything. So a build's cost follows the conferences that changed, not how many the server holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Protocol

from feeds import urls
from feeds.catalogue import FeedKind
from server.collector import release_cycles
from server.links import ConferenceLinks, Site, calendar_base, conference_site
from server.pages.index_pages import KINDS as FACET_KINDS
from server.pages.index_pages import facet_page
from server.site.build_bodies import Twin
from server.site.build_changes import KeptChangeLog, changes_files
from server.site.build_keys import code_key, digest
from server.site.build_output import Output
from server.site.build_record import Stamped
from server.site.build_schedule import Rows, read_schedule
from server.site.build_workers import Workers
from server.site.site_build import OWNED, Extra, Kept, conference_key, independent, site_parts
from server.snapshot.api import conferences_representation
from server.snapshot.published import Published
from server.store.changelog_since import Before
from server.store.report import ConferenceSummary
from server.store.store import RowWrites

# The snapshot of a conference as the calendars link it (`calendar_base`), read with the build's
# output at hand (which may keep what a later build reads instead); None when the store no
# longer holds it.
Load = Callable[[ConferenceSummary, str | None, Output], Published | None]


# What wrote the rows of the conference (slug) last loaded (Store.live's `writes`); None when the
# loader does not know (each session is then keyed by its content).
Writes = Callable[[str], RowWrites | None]


class StoreLoader:
    """Each conference's snapshot from `store`, as the server publishes it at `now` (a `Load`),
    and what `writes` says of the rows it was made from."""

    def __init__(self, store: Rows, now: datetime) -> None:
        self._store = store
        self._now = now
        self._writes: dict[str, RowWrites] = {}
        self._before: dict[str, Before] = {}

    def __call__(self, summary: ConferenceSummary, calendars: str | None, output: Output) -> Published | None:
        writes = RowWrites()
        read = read_schedule(self._store, output, summary.slug, writes, self._now)
        if read is None:
            return None
        # The last conference's only: the build goes one by one.
        self._writes = {summary.slug: writes}
        self._before = {summary.slug: read.before}
        # Feeds are rendered only when the build's record does not know their content.
        published = Published(
            read.schedule, now=self._now, base_url=calendars, lazy=True, documents=False, known=read.catalogue
        )
        read.keep(published.catalogue, self._now)
        return published

    def writes(self, slug: str) -> RowWrites | None:
        return self._writes.get(slug)

    def before(self, slug: str) -> Before | None:
        """The sessions of `slug` as of a version: those the last build kept, else those read now."""
        return self._before.get(slug)


def loader(store: Rows, now: datetime) -> StoreLoader:
    """Each conference's snapshot from `store`, as the server publishes it at `now`."""
    return StoreLoader(store, now)


class BuildStore(Rows, KeptChangeLog, Protocol):
    """What `confcal build` reads of server.store.Store: the conferences' rows and changelogs."""


def write_store(
    store: BuildStore,
    summaries: Sequence[ConferenceSummary],
    outdir: Path,
    root: Site,
    default: str | None,
    *,
    now: datetime,
    base_url: str | None,
    started: Callable[[str], None] | None = None,
    jobs: int = 1,
    load: StoreLoader | None = None,
) -> Built:
    """`write_conferences` of `store`'s conferences as `confcal build` writes them: each read by
    `load` (default: `loader(store, now)`) from the schedule the last build kept and the rows
    written since, its files keyed by the writes that made its rows, and its changelog from the
    store's versions."""
    reading = load if load is not None else loader(store, now)
    return write_conferences(
        summaries,
        reading,
        outdir,
        root,
        default,
        now=now,
        base_url=base_url,
        extra=lambda p, s, o: changes_files(p, s, store, o, reading.before(p.conference.slug)),
        started=started,
        jobs=jobs,
        writes=reading.writes,
    )


@dataclass
class Built:
    """What a build did: the files it wrote (new, or with changed bytes) and its conferences'
    feeds and sessions, those it carried over as they were included."""

    changed: list[str] = field(default_factory=list)  # site-relative
    # The files keyed: made, or found made from the same inputs; not those taken with their
    # directory or conference. What a rebuild's cost follows.
    keyed: list[str] = field(default_factory=list)
    conferences: int = 0
    feeds: int = 0
    sessions: int = 0
    carried: list[str] = field(default_factory=list)

    def add(self, feeds: int, sessions: int) -> None:
        """Count one more conference."""
        self.conferences += 1
        self.feeds += feeds
        self.sessions += sessions


def write_conferences(
    summaries: Sequence[ConferenceSummary],
    load: Load,
    outdir: Path,
    root: Site,
    default: str | None,
    *,
    now: datetime,
    base_url: str | None,
    extra: Extra | None = None,
    started: Callable[[str], None] | None = None,
    jobs: int = 1,
    writes: Writes | None = None,
) -> Built:
    """Write every conference's site and `api/conferences` with up to `jobs` processes; `base_url`
    is the calendars' (`--base-url`, or None: events then link to their source)."""
    output = Output(outdir)
    workers = Workers(output, jobs)
    built = Built()
    owned: list[tuple[str, bool]] = []
    document = conferences_representation(summaries, root).body
    output.put(urls.CONFERENCES_API, None, partial(_same, document))
    output.put(urls.json_twin(urls.CONFERENCES_API), None, partial(Twin, urls.CONFERENCES_API))
    # Each conference's pages link to every other one: those links are every conference's link
    # but its own, so all of them, digested once, and its slug name them in its stamp, where a
    # digest of each conference's own list would go over every conference for each of them.
    links = ConferenceLinks.of(summaries, root)
    everyone = links.key
    try:
        last_summary = summaries[-1] if summaries else None
        for summary in summaries:
            slug = summary.slug
            site = conference_site(root, slug, default)
            calendars = calendar_base(base_url, slug, default)
            base = urls.conference_base(slug) + "/"
            # The changelog files are keyed on this: a new store's version 3 is not the old one's.
            history = digest(summary.version, summary.recorded)
            stamp = digest(
                code_key(),
                "conference",
                slug,
                history,
                site,
                calendars,
                everyone,  # `site` says whether it is the default (its site is the root)
                extra is None,
            )
            # The stamp but for the conference's version: what a session's own files are made
            # from besides the session and the conference (conference_key).
            frame = digest(code_key(), "conference frame", slug, site, calendars, everyone, extra is None)
            last = output.stamped(slug)
            if last is not None and last.holds(stamp, now):
                _step(started, f"{slug} unchanged")
                output.carry(slug, slug == default)
                built.carried.append(slug)
                built.add(last.feeds, last.sessions)
                _step(started, f"{slug} unchanged")
            else:
                _step(started, f"rendering {slug}")
                output.spill()
                before = output.held()  # the parts the conference keeps are those held from here on
                published = load(summary, calendars, output)
                if published is None:
                    continue
                _step(started, f"writing {slug}")
                others = links.others(slug)
                named = writes(slug) if writes is not None else None
                files = conference_key(published, site)
                kept = _kept(output, last, named, frame, files, now, base, slug == default, published)
                for path, key, make in site_parts(published, site, others, extra, history, output, named, kept, base):
                    # One string, which the record holds too: the list costs a reference a file.
                    relative = base + path
                    built.keyed.append(relative)
                    # The default conference's copy at the root: hard links to the same files.
                    workers.put(relative, key, make, path if slug == default else None, shared=independent(path))
                schedule = published.schedule
                # The catalogue's, as made at `now` (visible_until) or patched: then the earliest end
                # of a grace period it knew of, which may come before one ended early by a change.
                until = published.catalogue.until
                parts = tuple(sorted(output.held() - before))
                # The last version whose rows the files show: every row read was written by it or
                # one before (Store.live reads the versions first), or is not named.
                version = max(named.versions, default=0) if named is not None else 0
                shows = named.versions.get(version, "") if named is not None else ""
                feeds, sessions = len(published.feeds), len(schedule.sessions)
                made = Stamped(stamp, now, until, feeds, sessions, parts, frame, files, version, shows)
                output.stamp(slug, made)
                built.add(len(published.feeds), len(schedule.sessions))
                # Its pages' cycles hold its sessions: freed before the next conference is read,
                # or a build of many conferences grows by each one's (and stops forking). After
                # the last one the walk would free nothing that matters: the build ends soon after,
                # and a large conference's young generation is every object its rendering kept.
                if summary is not last_summary:
                    release_cycles()
            owned += [(base + directory, recursive) for directory, recursive in OWNED]
            if slug == default:
                owned += OWNED
        workers.finish()
    finally:
        workers.stop()
    output.finish(owned)
    built.changed = output.written
    return built


def _kept(
    output: Output,
    last: Stamped | None,
    writes: RowWrites | None,
    frame: str,
    files: str,
    now: datetime,
    base: str,
    default: bool,
    published: Published,
) -> Kept | None:
    """Takes the own files (page, download) of a session whose row the last build read as the
    last build made them, without keying or making them, when everything else they are made
    from is as it was then: the stamp but for the version (`frame`), the conference (`files`),
    the rows' history (the version the last build showed is still there under the same name: a
    store or conference made anew renames it) and each session's visibility (the last build's
    clock still holds). None, and every file keyed, otherwise. The sessions' directory is taken
    whole, unread but for the sessions written since (Output.keep_range), and with it the
    feeds', QR codes' and speakers' pages but for the feeds the snapshot's patch touched and
    their speakers'; when the root then mirrored another conference, or this one and no longer
    does, sessions' files one by one (Output.keep) and every feed and speaker keyed."""
    if last is None or writes is None or not last.written:
        return None
    if (last.frame, last.base) != (frame, files) or writes.versions.get(last.version) != last.written:
        return None
    if not (last.made <= now and (last.until is None or now <= last.until)):
        return None
    since, rows = last.version, writes.rows
    # The sessions whose rows were written since: their files are made again; every other
    # session's are taken as a whole, unread, while the root mirrors as it did (a session is
    # never dropped from the store: see Store.live).
    written: set[str] = set()
    for session in published.schedule.sessions:
        number = rows.get(session.id)
        if number is None or number > since:
            written.add(session.id)
    looked = [base + path for session in written for path in _own_files(session)]
    directories = [urls.SESSIONS]
    # When the snapshot's feeds were patched from those kept with the schedule, the feeds the
    # patch touched (a superset of those whose members changed since the last build) are made
    # again; every other feed and its QR code is taken with the sessions' files, unkeyed. A
    # touched feed that ended is looked at by its path too: its files go, as the build's of any
    # file it no longer makes.
    remade = published.catalogue.touched
    # A speaker's page shows their sessions, each in the speaker's feed while it is shown at all:
    # the speakers whose feeds the patch touched are those whose pages may have changed, and
    # every other speaker's page is taken with the directory. So are the track's and room's
    # pages, each showing its feed's sessions.
    speakers: frozenset[str] | None = None
    if remade is not None:
        directories += [urls.FEEDS, urls.QR, urls.SPEAKERS, urls.TRACKS, urls.ROOMS]
        feeds = [urls.feed_of(kind, slug) for kind, slug in remade]
        looked += [base + path for feed in feeds for path in (feed, urls.feed_qr(feed))]
        looked += [
            base + facet_page(kind.value, slug) + urls.PAGE_FILE for kind, slug in remade if kind.value in FACET_KINDS
        ]
        speakers = frozenset(slug for kind, slug in remade if kind is FeedKind.SPEAKER)
        looked += [base + urls.speaker_page(slug) + urls.PAGE_FILE for slug in speakers]
    if output.keep_range([base + directory for directory in directories], looked, default):
        return Kept(feeds=remade, written=frozenset(written), speakers=speakers)

    def kept(session: str, path: str) -> bool:
        # A row is rewritten only with a new version: one no later than `since` is the one read then.
        number = rows.get(session)
        return number is not None and number <= since and output.keep(base + path, path if default else None)

    return Kept(kept)


def _own_files(session: str) -> tuple[str, str]:
    """The files of a session's own (site_build.site_parts): its download and its page."""
    return urls.session_download(session), urls.session_page(session) + urls.PAGE_FILE


def _step(started: Callable[[str], None] | None, what: str) -> None:
    if started is not None:
        started(what)


def _same(body: bytes) -> bytes:
    return body
