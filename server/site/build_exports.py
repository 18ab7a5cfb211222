"""The documents listing every session in a static build: schedule.xml,
schedule.json and `api/sessions`, each joined from one piece per day (`Output.piece`, kept
where the document holds it), so a rebuild after a session moved renders only the days it
touched.

A day's part is keyed on what its chunk is made from (feeds/exports/frab_layout.py, whose
docstring says what crosses days): the day's index and date, and each of its sessions' numeric
id (a rare hash collision can move it when another session is added) and digest; the
conference, the base URL and the rendering code are in `base`. The key needs no layout of the
day (its rooms, guids, slugs), so a rebuild lays out only the days whose key changed. The head
and tail (conference, rooms, tracks, version) are made each time the document is: they are
small. A day of `api/sessions` (api.py) is keyed on its sessions' digests and whether it comes
first.

A day made again is joined from its events' (or entries') texts as the last build made them,
kept per day by each session's key (build_texts.py): a session moved renders its own event in
each document, not its day's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date
from functools import partial
from itertools import chain
from typing import TypeVar

from feeds.exports import EXPORTERS
from feeds.exports.chunks import ChunkedExporter, DayChunk, Texts
from feeds.exports.frab_layout import FrabDay, FrabEvent, confirmed_sessions, id_hashes, layout
from feeds.model import Session
from server.links import Site
from server.site.build_bodies import Joined, Segment, Span
from server.site.build_keys import digest, listing
from server.site.build_output import Output
from server.site.build_texts import ChunkTexts, keep_map, kept_map
from server.snapshot.api import sessions_pieces
from server.snapshot.exports import EXPORT_ROUTES
from server.snapshot.published import Published

T = TypeVar("T")

# The exports the server answers (exports.EXPORT_ROUTES), by format name: the registry's own.
CHUNKED: dict[str, ChunkedExporter] = {
    name: found for name in EXPORT_ROUTES.values() if isinstance(found := EXPORTERS[name], ChunkedExporter)
}


def export_body(
    published: Published,
    site: Site,
    exporter: ChunkedExporter,
    output: Output | None,
    base: str,
    sessions: dict[str, str],
) -> Iterator[bytes] | Joined:
    """The export `exporter.render` writes for this snapshot and base URL, in pieces (written
    one by one: schedule.xml is tens of megabytes at 50,000 sessions), each day's chunk kept by
    `output` (session id -> digest in `sessions`) and copied from the last file when kept."""
    if output is not None:
        published.memo(("laid out", base), partial(_lay_out, published, output, base))
    chunks = exporter.chunks(published.schedule, now=published.now, base_url=site.base_url)
    if output is None:
        return chunks.pieces()

    def event(event: FrabEvent) -> str:
        # The text shows the number besides the session, and a collision elsewhere can move it.
        return f"{sessions[event.session.id]}-{event.number}"

    def kept(chunk: DayChunk) -> Span | Segment:
        key = digest(_day_inputs(published, base, sessions, chunk.day), exporter.name)
        return _day_part(output, key, _texts_key(base, exporter.name, chunk.day.date), chunk.make_with, event)

    return Joined.of(chain([chunks.head], map(kept, chunks.days), [chunks.tail]))


def _lay_out(published: Published, output: Output, base: str) -> None:
    """Lays the schedule out for both exports (frab_layout.layout keeps the last schedule's
    layout, which they then ask for) with its sessions' id hashes as the last build kept them
    (a hash of an id alone, a SHA-256 a session, the most of a large layout), and keeps them for
    the next build: a part as it is while the sessions are the same."""
    key = digest(base, "id hashes")
    last: dict[str, int] = kept_map(output, key)
    hashes = id_hashes([s.id for s in confirmed_sessions(published.schedule)], last)
    layout(published.schedule, hashes)
    keep_map(output, key, hashes, last)


def _texts_key(base: str, document: str, day: date) -> str:
    """The part holding the texts of a day's events or entries in `document`: named by the day,
    not by its sessions (build_texts.py)."""
    return digest(base, document, "day texts", day)


def _day_part(
    output: Output, key: str, texts: str, make: Callable[[Texts[T]], bytes], name: Callable[[T], str]
) -> Span | Segment:
    """The day's part `key`, made when it is not kept from its items' texts as the part `texts`
    keeps them (by `name`), which is kept for the next build whether or not the day is made."""
    output.hold(texts)
    return output.piece(key, partial(_made, key, make, ChunkTexts(output, texts, name)))


def _made(key: str, make: Callable[[Texts[T]], bytes], texts: ChunkTexts[T]) -> bytes:
    """The day's part `key` made with `texts`' keeper, which keeps where it holds them."""
    body = make(texts.texts)
    texts.keep(key, body)
    return body


def _day_inputs(published: Published, base: str, sessions: dict[str, str], day: FrabDay) -> str:
    """A digest of what a day's chunk is made from in either export, without the day's layout
    (made only when a chunk is): its index, date and each session's numeric id and digest, in
    the schedule's order (the store's, by start, title and id: the same for the same sessions)."""
    # Once for schedule.xml and schedule.json, which share the layout and so the days.
    known: dict[tuple[int, date], str] = published.memo(("export days", base), dict)
    found = known.get((day.index, day.date))
    if found is None:
        digests = [sessions[session.id] for session, _ in day.numbered]
        numbers = [number for _, number in day.numbered]  # apart: a list of pairs costs more to digest
        found = known[day.index, day.date] = listing((base, "export day", day.index, day.date, numbers), digests)
    return found


def sessions_api_body(
    published: Published, site: Site, output: Output | None, base: str, sessions: dict[str, str]
) -> Iterator[bytes] | Joined:
    """`api/sessions` (and its .json twin) in pieces, with each day's entries kept by `output`:
    written a day at a time, never joined (tens of megabytes at 50,000 sessions), and made again
    for the twin from the kept days."""
    if output is None:
        return sessions_pieces(published, site)

    # Each day's key, once for the document and its twin; a day is named by its first session
    # (the days are apart).
    keys: dict[str, str] = published.memo(("sessions day keys", base), dict)

    def entry(session: Session) -> str:
        return sessions[session.id]

    def kept(day: tuple[Session, ...], first: bool, make: Callable[[Texts[Session]], bytes]) -> Span | Segment:
        key = keys.get(day[0].id)
        if key is None:
            key = keys[day[0].id] = listing((base, "sessions day", first), [sessions[s.id] for s in day])
        texts = _texts_key(base, "api/sessions", published.conference.day_of(day[0].start))
        return _day_part(output, key, texts, make, entry)

    return Joined.of(sessions_pieces(published, site, kept))
