"""The VEVENTs of a static build kept for the next one: a rebuild after one session moved
re-renders that session's event, not the thousands of events of every feed it is in.

A conference's events are one part of the build record (build_output.py), keyed on `base` (the
rendering code, the conference and the base URLs, which an event's bytes depend on besides its
session): the bytes of each session's event by the digest of the session. The snapshot's event
cache asks it for a session it does not hold (`EventCache.fallback`) before rendering; its index
is read on the first such question only, so a build that renders no feed does not read it, and
an event only when asked for. The events are in two parts: all of them as a build wrote them
(the base), and those rendered since (the events since), so that a rebuild after a change
writes the changed sessions' events alone, not again the tens of megabytes of every event of a
large conference. Once the events since, and the base's events no session has any more, pass a
share of the base, the two are merged into a new base, the kept events copied from the last
unread (`Output.renew_unread`). After the conference's feeds and downloads are given to the
build, when an event was rendered, the parts are saved and the cache lets go of the events:
the downloads still to make (a worker's, or this process's at the end) read theirs from the
parts.

The VTIMEZONE the feeds hold is kept too (`KeptZone`), keyed on the zone's tzdata file: made
from tzdata by walking seventy years of the zone, it was most of rendering one changed feed.
"""

from __future__ import annotations

import os
import weakref
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import accumulate, pairwise
from pathlib import Path

from feeds.ical import timezone
from feeds.model import Conference, Session
from server.site.build_bodies import Span
from server.site.build_keys import body_digest, digest
from server.site.build_output import Output
from server.snapshot.published import Published

_DIGEST = 32  # hex characters of a session's digest (build_keys.digest)
_LENGTH = 10  # decimal digits of an event's length
_RUN = 1 << 22  # bytes of kept events read at once, at most about
# The base is merged with the events since once these and the base's events of no session are
# more than one in this many of the base's.
_MERGED_PAST = 16


class KeptEvents:
    def __init__(self, output: Output, base: str, published: Published, sessions: dict[str, str]) -> None:
        self._output, self._published, self._sessions = output, published, sessions
        self._key = digest(base, "events")
        self._since_key = digest(base, "events since")
        self._known: tuple[Events, Events] | None = None
        output.hold(self._key)
        output.hold(self._since_key)
        published.cache.fallback = self.event

    def event(self, conference: Conference, session: Session, base_url: str | None, alarm: int | None) -> bytes | None:
        """The last build's bytes of this session's event, if it made them from the same inputs."""
        published = self._published
        if alarm is not None or base_url != published.base_url or not _same(conference, published.conference):
            return None
        if published.session(session.id) is not session:
            return None  # not the snapshot's own session: its digest is not at hand
        key = self._sessions[session.id]
        since, known = self._last()
        found = since.get(key)
        return found if found is not None else known.get(key)

    def save(self) -> None:
        """Keep the events of the snapshot's sessions for the next build, if any was rendered,
        and let the snapshot's cache go of them: the files made after (the sessions' downloads
        still to make) read each back from the parts just written (`Saved`). The rendered
        events go into the events since, with those of it still wanted, the base left as it
        is; past `_MERGED_PAST`, into a new base: the last with the rendered events and those
        since put in and the events of sessions gone taken out, both in digest order, so the
        events kept are copied in runs, not one by one, and the events since left empty."""
        cache = self._published.cache
        try:
            if cache.renders == 0:
                return
            since, known = self._last()
            wanted = set(self._sessions.values())
            held = cache.held(self._published.conference, self._published.base_url, None)
            fresh: dict[str, bytes] = {}
            for sid, (session, data) in held.items():
                if self._published.session(sid) is session:
                    key = self._sessions[sid]
                    if key not in known and key not in since:
                        fresh[key] = data
            del held
            still = [key for key in since.index()[0] if key in wanted]
            based = known.places()
            unused = len(based) - len(wanted & based.keys())
            parts = self._output.parts
            if based and (len(still) + len(fresh) + unused) * _MERGED_PAST <= len(based):
                places: dict[str, tuple[int, int]] = {}
                self._output.renew_unread(self._since_key, merged(since, wanted, fresh, places))
                saved = [(parts / self._since_key, places), (parts / self._key, based)]
            else:
                fresh.update((key, since.read(key)) for key in still)
                places = {}
                self._output.renew_unread(self._key, merged(known, wanted, fresh, places))
                if since.index()[0]:  # now in the base
                    self._output.renew_unread(self._since_key, merged(Events(None), set(), {}, {}))
                saved = [(parts / self._key, places)]
            del fresh
            cache.spill(Saved(saved, self._published, self._sessions))
        finally:
            if self._known is not None:
                for events in self._known:
                    events.close()
            # The kept files are closed: nothing more to fall back on. Letting go of the hook also
            # ends the cycle snapshot -> cache -> this -> snapshot, so reference counting frees
            # the snapshot once the build is done with it rather than the collector, whose full
            # passes are rare while a build allocates: a build of many conferences held dozens.
            # (`Saved`, the hook once the events are saved, holds no snapshot.)
            if cache.fallback == self.event:
                cache.fallback = None

    def _last(self) -> tuple[Events, Events]:
        """The last build's events since and base by session digest, read on first use."""
        if self._known is None:
            output = self._output
            self._known = (Events(output.kept_unread(self._since_key)), Events(output.kept_unread(self._key)))
        return self._known


def merged(
    known: Events, wanted: set[str], fresh: dict[str, bytes], places: dict[str, tuple[int, int]], most: int = _RUN
) -> Iterator[bytes | Span]:
    """The pieces of the part holding the events of `wanted` (digests), in digest order (`Events`
    says how a part is laid out): those `known` holds as spans of its file, in runs of
    consecutive events (of `most` bytes at most, but for a longer event), copied unread; those
    of `fresh` (none of which `known` holds) each put in its place. Where each event's bytes are
    in the part goes to `places`, by digest.

    A rebuild puts in and takes out a few events among tens of thousands, so the runs are cut
    where those few are (found by bisection: the part is in digest order) and the index and
    places are made with whole-list passes, not by a step per event."""
    keys, starts, ends = known.index()
    gone = sorted(bisect_left(keys, key) for key in set(keys).difference(wanted))
    added = sorted(fresh)
    # Where the kept events are cut: before a fresh event's place (0) or at a gone one (1).
    cuts = sorted([(bisect_left(keys, key), 0, key) for key in added] + [(at, 1, "") for at in gone])
    plan: list[tuple[int, int] | str] = []  # a run of `known`'s file (first, last byte), or a fresh digest
    run = 0  # the first kept event not yet in the plan
    for at, kind, key in [*cuts, (len(keys), 1, "")]:
        while run < at:  # the kept events before the cut, in runs of `most` bytes at most
            until = max(run + 1, min(at, bisect_right(ends, starts[run] + most, run, at)))
            plan.append((starts[run], ends[until - 1]))
            run = until
        if kind == 0:
            plan.append(key)
        else:
            run = at + 1
    final = [key for key in keys if key in wanted] + added
    final.sort()  # two sorted runs: merged in one pass
    lengths = {key: len(body) for key, body in fresh.items()}
    lengths.update((key, end - start) for key, start, end in zip(keys, starts, ends, strict=True))
    sizes = [lengths[key] for key in final]
    offsets = list(accumulate(sizes, initial=0))
    places.update(zip(final, zip(offsets, offsets[1:], strict=False), strict=True))
    for step in plan:
        yield fresh[step] if isinstance(step, str) else known.span(*step)
    yield "".join(final).encode("ascii")
    yield b"".join(b"%0*d" % (_LENGTH, size) for size in sizes)
    yield b"%0*d" % (_LENGTH, len(final))


class KeptZone:
    """The VTIMEZONE of the conference's zone as the last build made it (a part keyed on the
    zone's tzdata and `base`, which holds the code), given to feeds.ical.timezone before the
    feeds are made; made and kept for the next build when none was."""

    def __init__(self, output: Output, base: str, tzid: str) -> None:
        source = timezone.zone_source(tzid)
        self._output, self._tzid = output, tzid
        self._key = None if source is None else digest(base, "vtimezone", tzid, body_digest(source))
        self._kept = False
        if self._key is not None:
            output.hold(self._key)
            found = output.kept(self._key)
            if found is not None:
                timezone.known(tzid, found)
                self._kept = True

    def save(self) -> None:
        if self._key is not None and not self._kept:
            self._output.renew(self._key, timezone.vtimezone_bytes(self._tzid))


def _same(conference: Conference, own: Conference) -> bool:
    # The snapshot's own object, asked about for every session of its feeds: `is` spares
    # comparing the dataclass's fields each time; an equal one is the same conference too.
    return conference is own or conference == own


class Saved:
    """The events a build saved, read back from their parts by session: the snapshot's cache's
    fallback once it let go of them (`EventCache.spill`). Holds no snapshot (no cycle through
    the cache); the parts' files are closed when the cache lets go of this."""

    def __init__(
        self, parts: list[tuple[Path, dict[str, tuple[int, int]]]], published: Published, sessions: dict[str, str]
    ) -> None:
        # Each part's file and where each event is in it, looked through in this order.
        self._parts = [(os.open(path, os.O_RDONLY), places) for path, places in parts]
        for file, _ in self._parts:
            weakref.finalize(self, os.close, file)
        self._sessions = sessions
        self._conference, self._base_url = published.conference, published.base_url
        self._own = published.sessions_by_id

    def __call__(
        self, conference: Conference, session: Session, base_url: str | None, alarm: int | None
    ) -> bytes | None:
        if alarm is not None or base_url != self._base_url or not _same(conference, self._conference):
            return None
        if self._own.get(session.id) is not session:
            return None  # not the snapshot's own session: its digest is not at hand
        key = self._sessions[session.id]
        for file, places in self._parts:
            place = places.get(key)
            if place is not None:
                start, end = place
                return os.pread(file, end - start, start)
        return None


class Events:
    """The last build's events in their part (`path`), found by session digest and read from the
    file when asked for: only the index at its end is read here, since a large conference's
    part is tens of megabytes, of which a rebuild reads an event or two and copies the rest."""

    def __init__(self, path: str | None) -> None:
        self._path = path or ""
        self._file: int | None = None
        self._at: dict[str, tuple[int, int]] = {}
        self._index: tuple[list[str], list[int], list[int]] = ([], [], [])
        if path is None:
            return
        try:
            self._file = os.open(path, os.O_RDONLY)
        except OSError:
            return
        # The events' bytes one after another, then the index: every digest, then every length
        # in ten digits, then their number in ten digits. Read with slices and C-level passes,
        # not an entry at a time: a large conference's part holds 50,000 events.
        size = os.fstat(self._file).st_size
        last = os.pread(self._file, _LENGTH, size - _LENGTH) if size >= _LENGTH else b""
        count = int(last) if len(last) == _LENGTH and last.isdigit() else 0
        index = size - _LENGTH - count * (_DIGEST + _LENGTH)
        if count == 0 or index < 0:
            return
        body = os.pread(self._file, count * (_DIGEST + _LENGTH), index)
        digests = body[: count * _DIGEST].decode("ascii", "replace")
        lengths_at = count * _DIGEST
        try:
            lengths = [int(body[i : i + _LENGTH]) for i in range(lengths_at, lengths_at + count * _LENGTH, _LENGTH)]
        except ValueError:
            return  # not a part as merged writes it
        ends = list(accumulate(lengths))
        if ends[-1] != index:
            return  # not a part as merged writes it: no event of it is used
        starts = [0, *ends[:-1]]
        keys = [digests[i : i + _DIGEST] for i in range(0, count * _DIGEST, _DIGEST)]
        if any(later <= earlier for earlier, later in pairwise(keys)):
            return  # not in digest order, as merged writes it
        self._index = (keys, starts, ends)
        self._at = dict(zip(keys, zip(starts, ends, strict=True), strict=True))

    def __contains__(self, key: str) -> bool:
        return key in self._at

    def places(self) -> dict[str, tuple[int, int]]:
        """Where each event starts and ends in the part, by digest."""
        return self._at

    def index(self) -> tuple[list[str], list[int], list[int]]:
        """Every event's digest, in the part's (digest) order, and where each starts and ends."""
        return self._index

    def span(self, first: int, last: int) -> Span:
        """The part's bytes `first` to `last`, to be copied unread."""
        return Span(self._path, first, last, "")

    def get(self, key: str) -> bytes | None:
        return self.read(key) if key in self._at else None

    def read(self, key: str) -> bytes:
        start, end = self._at[key]
        if self._file is None:
            raise ValueError("the events' part is closed")
        return os.pread(self._file, end - start, start)

    def close(self) -> None:
        if self._file is not None:
            os.close(self._file)
            self._file = None
