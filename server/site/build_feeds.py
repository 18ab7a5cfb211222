"""A large feed of a static build joined from the file the last build wrote, in the time of the
chunks that changed.

A feed is its head, the VTIMEZONE when an event names the zone, its events in order and END
(feeds.ical.render_calendar). A feed of thousands of sessions (the whole conference's, a day's or
a kind's at a large conference) changes with any of them, and asking for its every event again,
even from the events the last build kept (build_events.py), cost a rebuild after one move more
than making the files that move changed. So a large feed's sessions are cut into chunks after
the sessions their ids pick (`cuts`), not every so many sessions: a moved session changes the
chunk it left and the one it joined, and no other chunk's bounds, wherever it moved. A chunk is
named by its sessions' keys. For each large feed the build keeps where each
chunk's events are in the file it wrote, with their SHA-256 (a part named by the feed's path),
and a rebuild takes every chunk it names from that file, when the file is still the one the
record names (`Output.source`), rendering the others' events alone: the feed is written
`Joined`, so the chunks taken are copied by the kernel, neither read nor digested again. The
bytes are render_calendar's (tests/server/app/test_build_feeds.py compares them).
"""

from __future__ import annotations

import zlib
from collections.abc import Container, Iterable, Sequence

from feeds.model import Session
from feeds.query import feed_title
from server.site.build_bodies import Joined, Span, segment
from server.site.build_keys import digest, listing
from server.site.build_output import Output
from server.snapshot.large_feeds import Taken, join_chunks
from server.snapshot.published import Feed, Published

# A chunk ends after one session in this many (by a hash of its id), so a chunk is about 256
# events, some 150 KB, and a feed of 50,000 sessions about 200 chunks.
_SPAN = 256
# The feeds with at least this many sessions are joined from chunks; the others are made whole.
LARGE = 1024


class KeptFeeds:
    """The large feeds of one conference's build: `output`'s files under `at` (the conference's
    directory in the output); `base` is the key of what every file is made from besides its
    sessions (site_build.conference_key), `sessions` each session's key by id."""

    def __init__(self, output: Output, base: str, at: str, published: Published, sessions: dict[str, str]) -> None:
        self._output, self._base, self._at = output, base, at
        self._published, self._sessions = published, sessions
        self._cuts: frozenset[str] | None = None

    def hold(self, feed: Feed) -> None:
        """Keep a large feed's chunks' places for the next build, whether it is made this time
        or not (a feed skipped by its key still has the file they describe)."""
        self._output.hold(self._places_key(feed))

    def body(self, feed: Feed, keys: list[str]) -> Joined:
        """The feed's bytes, in segments: each chunk the last build's file holds taken from it,
        the others' events rendered (from the event cache); `keys`: its sessions' keys, in order."""
        published = self._published
        members = feed.sessions
        if self._cuts is None:
            # The sessions ending a chunk, by key: `keys` holds the feed's, where its sessions'
            # ids would take another pass over the feed.
            self._cuts = frozenset(self._sessions[i] for i in cuts(self._sessions))
        places_key = self._places_key(feed)
        places = self._last(feed, places_key)
        bounds = chunks(keys, self._cuts)
        names = [listing((), keys[start:end]) for start, end in bounds]
        taken: list[tuple[Sequence[Session], Taken[Span]]] = [
            (members[start:end], places.get(name)) for (start, end), name in zip(bounds, names, strict=True)
        ]
        title = feed_title(published.conference, feed.spec)
        laid = join_chunks(published.conference, published.base_url, published.cache, title, taken)
        made = [found if isinstance(found, Span) else segment(found) for found in laid.chunks]
        lines = [
            f"{name} {at} {until} {int(zoned)} {found.sha}"
            for name, (at, until, zoned), found in zip(names, laid.places, made, strict=True)
        ]
        self._output.renew(places_key, "\n".join(lines).encode("ascii"))
        return Joined([segment([laid.head]), segment([laid.zone]), *made, segment([laid.end])])

    def _places_key(self, feed: Feed) -> str:
        return digest(self._base, "feed chunks", feed.path)

    def _last(self, feed: Feed, places_key: str) -> dict[str, tuple[Span, bool]]:
        """Where each chunk's events are in the last build's file of the feed, with whether they
        name the zone; nothing when the file is not the one the record names or the part is not
        as it gives it (checked by its digest)."""
        described = self._output.kept(places_key)
        path = self._output.source(self._at + feed.path) if described is not None else None
        if described is None or path is None:
            return {}
        places = {}
        for line in described.decode("ascii").splitlines():
            name, at, until, zoned, sha = line.split(" ")
            places[name] = (Span(path, int(at), int(until), sha), zoned == "1")
        return places


def cuts(ids: Iterable[str]) -> frozenset[str]:
    """The sessions (by id) a chunk ends after: one in `_SPAN`, picked by a hash of the id
    alone, so a session ends a chunk or not wherever it is and whatever it holds."""
    return frozenset(i for i in ids if zlib.crc32(i.encode()) % _SPAN == 0)


def chunks(ids: Sequence[str], cut: Container[str]) -> list[tuple[int, int]]:
    """Where a feed's sessions (their ids or keys, in order) are cut into chunks: (start, end)
    each, ending after each session in `cut`."""
    bounds = []
    start = 0
    for at, found in enumerate(ids):
        if found in cut:
            bounds.append((start, at + 1))
            start = at + 1
    if start < len(ids):
        bounds.append((start, len(ids)))
    return bounds
