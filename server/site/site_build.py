"""The static site `confcal build` writes: the same bytes the server answers for the same paths.

Every conference is written under its base (`c/{slug}/`, urls.py), with `api/conferences` at
the root listing them, as `confcal serve` answers them; the default conference's files appear
at the root as well, as hard links to the same files (the bytes are the same: every link in
them is relative or built from the configured base URL), and so is a document's `.json` twin
(`api/sessions.json` is `api/sessions`: tens of megabytes at 50,000 sessions, not made twice).

Files are taken from one `Published` snapshot through the same representation functions the
routes use, so a static host or CDN serves exactly what `confcal serve` would. Every file the
build writes goes through one `Output` (build_output.py) with a key naming what it is made
from: a rebuild makes only the files whose inputs changed (a moved session: its own files, its
feeds and the documents listing every session), rewrites only those whose bytes changed (the
others keep their mtime, so sync tools skip them), and removes what the last build wrote and
this one did not (a dropped feed disappears rather than going stale). Every conference goes
through one record (build_conferences.py), which carries a conference over whole when nothing
it is made from changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from feeds import urls
from feeds.catalogue import FeedKind
from feeds.model import Session
from server.links import NO_OTHERS, OtherConferences, Site
from server.pages.assets import service_worker, static_files
from server.pages.cards import page_path, session_card
from server.pages.detail_pages import (
    session_representation,
    speaker_path,
    speaker_representation,
    speakers,
)
from server.pages.feed_index import feed_index_paths
from server.pages.params import is_safe_id
from server.pages.qr import qr_svg, qr_title
from server.site.build_bodies import Body, Twin
from server.site.build_events import KeptEvents, KeptZone
from server.site.build_exports import CHUNKED, export_body, sessions_api_body
from server.site.build_feeds import LARGE, KeptFeeds
from server.site.build_keys import code_key, digest, listing
from server.site.build_output import Output
from server.site.build_pages import PageParts, page_extras, page_parts, spec_fields
from server.site.build_texts import keep_map, kept_map
from server.snapshot.conditional import Representation
from server.snapshot.exports import EXPORT_ROUTES
from server.snapshot.published import Feed, Published
from server.store.store import RowWrites

# More files of a conference from outside its snapshot (the changelog reads the store's history),
# at these paths; they change only with a new version of the conference. They may keep parts in
# the build's output (build_changes.py).
Extra = Callable[[Published, Site, Output | None], Iterable[tuple[str, bytes]]]
EXTRA_PATHS = (urls.CHANGES + urls.PAGE_FILE, urls.CHANGES_ATOM, urls.API_CHANGES)

# Directories whose every file of the kinds a build makes (build_output's `_owned_files`: feeds,
# downloads, QR codes, pages of their own) the build owns, whether it wrote it or not
# (recursive?): a build after its record was lost (a site checked out of a repository, where the
# record beside it is not) leaves no session, speaker, track, room or day that is gone. Anything
# else in OUTDIR is left alone unless the last build wrote it.
OWNED = (
    ("feeds", True),
    ("sessions", False),
    ("speakers", False),
    ("tracks", False),
    ("rooms", False),
    ("days", False),
    ("subscribe", False),
    ("qr", True),
)


@dataclass(frozen=True)
class Kept:
    """What a rebuild takes as the last build made it, without keying or making it: every
    session's own files but those of the `written` sessions, or, without `written`, each file
    `session(id, site-relative path)` says it took; with `feeds` (the feeds made again) every
    other catalogue feed, its QR code and its track's or room's page; and with `speakers` (the
    slugs of the speakers whose feeds were made again) every other speaker's page."""

    session: Callable[[str, str], bool] | None = None
    feeds: frozenset[tuple[FeedKind, str]] | None = None
    written: frozenset[str] | None = None
    speakers: frozenset[str] | None = None


# (site-relative path, key of its inputs or None to make it every time, how to make its bytes)
Part = tuple[str, str | None, Callable[[], Body]]


def site_parts(
    published: Published,
    site: Site,
    others: OtherConferences = NO_OTHERS,
    extra: Extra | None = None,
    history: str = "",
    output: Output | None = None,
    writes: RowWrites | None = None,
    kept: Kept | None = None,
    at: str = "",
) -> Iterator[Part]:
    """Every file of one conference's site, each with the key of what it is made from; `writes`:
    what wrote the rows the snapshot was made from (Store.live); `kept`: takes a session's own
    file (page, download) as the last build made it, when its session is as it was then (the
    file is then not yielded), and feeds; `at`: the conference's directory in `output`."""
    base = conference_key(published, site)
    # Each session's key: everything its own files (download, page) are made from. One digest per
    # session serves both files and every key listing sessions (two fewer digests a session).
    # The write that made its row names the session as well as its content does (the rest is in
    # `base`), at a fraction of digesting every field; a session `writes` does not name is keyed
    # by its content.
    known = writes if writes is not None else RowWrites()
    row = digest(base, "row")
    # What every key of the rows one version wrote starts with, hashed once: a copy of it takes
    # the session's id (a copy costs two thirds of hashing the whole again).
    by_version: dict[int, hashlib.blake2b] = {}

    def session_key(session: Session) -> str:
        number = known.rows.get(session.id)
        if number is None:
            return digest(base, session)
        start = by_version.get(number)
        if start is None:
            prefix = f"{row}\0{known.versions[number]}\0".encode()
            start = by_version[number] = hashlib.blake2b(prefix, digest_size=16)
        key = start.copy()
        key.update(session.id.encode())
        return key.hexdigest()

    # The QR codes first: a parallel build's first workers make them (`independent`) while this
    # process keys the sessions. A QR code is made from its feed's link and title alone, so its
    # worker writes to few of the pages it shares with this process, each of which the kernel
    # then copies; a session's page reads, and so writes to, every object of its session.
    remade = kept.feeds if kept is not None else None

    def feed_taken(feed: Feed) -> bool:
        """Whether the feed is taken with the feeds' directory, as are its QR code and page."""
        return remade is not None and (feed.spec.kind, feed.spec.slug) not in remade

    for feed in published.feeds:
        if feed_taken(feed):
            continue
        url, title = site.url(feed.path), qr_title(feed)
        yield urls.feed_qr(feed.path), digest(base, "qr", url, title), partial(_body, qr_svg, url, title)
    # Made as the pages are yielded, so the first pages reach a worker before every session is
    # digested (else the other cores idle through that part of a large build's start); complete
    # before anything else reads them.
    sessions: dict[str, str] = {}
    events = KeptEvents(output, base, published, sessions) if output is not None else None
    # Session and speaker pages next, for the workers too, while this process renders the feeds.
    everything = published.feed(FeedKind.ALL.value, "")
    written = kept.written if kept is not None else None
    taken = kept.session if kept is not None else None
    # The cards of the sessions whose pages are made, first, here: this process shows them on the
    # day pages, and the workers forked from now on inherit them, where each worker making session
    # or speaker pages would make the cards of its sessions again. (A rebuild remakes a few.)
    shown = everything.sessions if everything else ()
    own = shown if written is None else [s for s in shown if s.id in written]
    for session in own:
        session_card(published, session)
    if written is not None:
        # Every other session's pages are taken with the sessions' directory: only its key.
        sessions.update((session.id, session_key(session)) for session in shown)
    for session in own:
        if written is None:
            sessions[session.id] = session_key(session)
        key = sessions[session.id]
        if is_safe_id(session.id) and not (
            taken is not None and taken(session.id, page_path(session) + urls.PAGE_FILE)
        ):
            yield (
                page_path(session) + urls.PAGE_FILE,
                key,
                partial(_body, session_representation, published, site, session),
            )
    if len(sessions) < len(published.schedule.sessions):  # some the feeds no longer list
        for session in published.schedule.sessions:
            if session.id not in sessions:
                sessions[session.id] = session_key(session)
    if extra is not None:
        # From the store's history, not the snapshot: keyed by the conference's latest version
        # and when it was recorded (`history`). Early, while the workers make the session pages:
        # a first build reads every version's rows for it, and did so on top of all the
        # conference's files made so far.
        files = _Once(partial(extra, published, site, output))
        changes_key = digest(base, "history", history)
        for path in EXTRA_PATHS:
            yield from _documents(output, at, path, changes_key, partial(files.body, path))
        del files
    # Each speaker's page's key, in the speakers' order: everything the speakers' directory shows.
    # A large conference has thousands of speakers, of whom a change touches one or two: with
    # the speakers' directory taken whole (`Kept.speakers`), every other speaker's page is not
    # yielded, and their key, which the speakers' directory is keyed and spliced on, is the one
    # the last build kept.
    speaker_keys: list[str] = []
    speaker_kind = FeedKind.SPEAKER.value
    keys_key = digest(base, "speaker keys")
    last: dict[str, str] = kept_map(output, keys_key) if output is not None else {}
    touched = kept.speakers if kept is not None else None
    entries = speakers(published)
    for slug, entry in entries.items():
        if touched is not None and slug not in touched:
            found = last.get(slug)
            if found is not None:
                speaker_keys.append(found)
                continue
        speaker_feed = published.feed(speaker_kind, slug)
        key = listing(
            (base, "speaker", _fields(entry.speaker), spec_fields(speaker_feed.spec) if speaker_feed else None),
            [sessions[s.id] for s in entry.sessions],
        )
        speaker_keys.append(key)
        yield (
            speaker_path(entry.speaker) + urls.PAGE_FILE,
            key,
            partial(_body, speaker_representation, published, site, entry),
        )
    if output is not None:
        keep_map(output, keys_key, dict(zip(entries, speaker_keys, strict=True)), last)
    # The pages listing every speaker, track, room or feed of a kind, and search.json, before the
    # feeds: each is made whole, a hundred megabytes more while it is at 50,000 sessions, so
    # while this process is small (the feeds' events, the files' record not yet in it).
    parts = PageParts(output, base, published, site, sessions, speaker_keys, at)
    yield from page_extras(published, site, parts, kept.feeds if kept is not None else None)
    # Each page of a kind too long to list on the schedule pages shows only that kind's feeds.
    for kind, path in feed_index_paths(published):
        parts.hold_feed_index(kind)
        yield path, parts.feed_index_key(kind), partial(parts.feed_index_body, kind)
    zone = KeptZone(output, base, published.conference.timezone) if output is not None else None
    large = KeptFeeds(output, base, at, published, sessions) if output is not None else None
    for feed in published.feeds:
        if feed_taken(feed):
            # Its members' count: `sessions` would copy a large feed's chunks into one tuple.
            if large is not None and len(feed.members) >= LARGE:
                large.hold(feed)
            continue
        members = [sessions[s.id] for s in feed.sessions]
        make: Callable[[], Body] = partial(_feed_body, feed)
        if large is not None and len(members) >= LARGE:
            large.hold(feed)
            make = partial(large.body, feed, members)
        yield feed.path, listing((base, spec_fields(feed.spec)), members), make
    # The downloads after the feeds: each takes its event from the cache the feeds filled.
    downloads = published.schedule.sessions
    if written is not None:  # every other session's download is taken with the directory
        downloads = tuple(s for sid in sorted(written) if (s := published.session(sid)) is not None)
    for session in downloads:
        # Ids come from feeds.identity (hex); the check guards the file system all the same.
        download = urls.session_download(session.id)
        if is_safe_id(session.id) and not (taken is not None and taken(session.id, download)):
            yield (
                download,
                sessions[session.id],
                partial(published.download_body, session),
            )
    if zone is not None:
        zone.save()
    if events is not None:
        events.save()  # the feeds are made, so every event is rendered: the downloads read them back
    # The schedule pages: each keyed on what it shows, joined from parts (build_pages.py).
    yield from page_parts(published, site, others, parts)
    # The feeds' list shows each feed's name, links and number of events, not the sessions.
    yield from _documents(output, at, urls.API_FEEDS, digest(base, "feeds", parts.feeds), parts.feeds_api)
    # The documents listing every session (sessions API, exports): one key, of the sessions' keys
    # in the order they were made (the whole feed's, then the rest's), which the sessions decide.
    whole = listing((base, "sessions"), list(sessions.values()))
    listed = partial(sessions_api_body, published, site, output, base, sessions)
    yield from _documents(output, at, urls.API_SESSIONS, whole, listed)
    for route, name in EXPORT_ROUTES.items():
        # schedule.xml / schedule.json for conference apps, as the server answers them, joined
        # from a kept part per day (build_exports.py).
        yield route.lstrip("/"), whole, partial(export_body, published, site, CHUNKED[name], output, base, sessions)
    yield urls.SERVICE_WORKER, base, partial(_body, service_worker)
    for path, body in static_files():
        yield path, base, partial(_same, body)


def conference_key(published: Published, site: Site) -> str:
    """The key of what every file of a conference is made from besides its sessions: the code,
    the conference, the site's and the calendars' base URLs."""
    return digest(code_key(), published.conference, site.base_url, published.base_url)


def _fields(value: object) -> tuple[object, ...]:
    """A frozen dataclass's fields (of plain values), for a key: the same as its repr for it,
    at a fraction of the cost (a dataclass's repr goes through a recursion guard), which every
    speaker and feed of a large conference paid."""
    return tuple(vars(value).values())


class _Once:
    """The extra files of a conference, made when the first of them is needed."""

    def __init__(self, make: Callable[[], Iterable[tuple[str, bytes]]]) -> None:
        self._make = make
        self._files: dict[str, bytes] | None = None

    def body(self, path: str) -> bytes:
        if self._files is None:
            self._files = dict(self._make())
        return self._files[path]


def _documents(output: Output | None, at: str, path: str, key: str, make: Callable[[], Body]) -> Iterator[Part]:
    """The file at `path` and, for an API document, its `.json` twin: a hard link to it in
    `output` (`at` is the conference's directory there), else made again."""
    yield path, key, make
    if path in _TWINNED:
        yield urls.json_twin(path), key, make if output is None else partial(Twin, at + path)


# The API documents the server also answers at a `.json` path (server/snapshot/answers.py).
_TWINNED = frozenset({urls.API_CHANGES, urls.API_FEEDS, urls.API_SESSIONS})


def _body(make: Callable[..., Representation], *args: object) -> bytes:
    return make(*args).body


def _feed_body(feed: Feed) -> bytes:
    # Made, not kept: a build writes each feed once, and holding them all (a large conference's
    # feeds are several times all.ics) was most of a build's memory.
    if feed.rendered:
        return feed.representation.body
    body = feed.make().body
    # A large feed keeps its body's parts for the feed replacing it in the server's next
    # snapshot; a build's snapshot has no next one, and every large feed's body would stay.
    feed.let_go()
    return body


def _same(body: bytes) -> bytes:
    return body


def independent(path: str) -> bool:
    """Whether the file at this site-relative path is made from the snapshot alone, keeps no
    part and is joined into no other file, so a worker process may make it (build_workers.py):
    a session's download and page, a speaker's page, a QR code. (A session's download takes its
    event from the snapshot's cache, which the feeds made before it filled: a worker forked
    since has it too, and the build's process keeps the events for the next build.) Not the
    speakers' index: made whole, it takes a hundred megabytes more while it is made at 50,000
    sessions, so it is made when it comes, early, not among the last files."""
    return path.startswith(_INDEPENDENT) and path != _SPEAKERS_INDEX


_INDEPENDENT = ("qr/", "speakers/", "sessions/")
_SPEAKERS_INDEX = urls.SPEAKERS + urls.PAGE_FILE
