"""The documents listing every session in a static build (issue 12): schedule.xml,
schedule.json and `api/sessions`, each joined from one kept part per day, so a rebuild after a
session moved renders only the days it touched.

A day's part is keyed on what its chunk is made from (feeds/exports/chunks.py): the day's
index and date, and for each room each event's numeric id (a rare hash collision can move it
when another session is added) and its session's digest; the conference, the base URL and the
rendering code are in `base`. The head and tail (conference, rooms, tracks, version) are made
each time the document is: they are small. A day of `api/sessions` (api.py) is keyed on its
sessions' digests and whether it comes first.
"""

from __future__ import annotations

from collections.abc import Callable

from feeds.exports import EXPORTERS
from feeds.exports.chunks import ChunkedExporter, DayChunk
from feeds.model import Session
from server.app.api import sessions_body
from server.app.build_output import Output, digest
from server.app.exports import EXPORT_ROUTES
from server.app.links import Site
from server.app.published import Published

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
) -> bytes:
    """The export `exporter.render` writes for this snapshot and base URL, each day's chunk kept
    by `output` (session id -> digest in `sessions`)."""
    chunks = exporter.chunks(published.schedule, now=published.now, base_url=site.base_url)
    if output is None:
        return chunks.join()

    def kept(chunk: DayChunk) -> bytes:
        day = chunk.day
        events = [(room.name, [(e.number, sessions[e.session.id]) for e in room.events]) for room in day.rooms]
        key = digest(base, "export day", exporter.name, day.index, day.date, events)
        return output.part(key, chunk.make)

    return chunks.join(kept)


def sessions_api_body(
    published: Published, site: Site, output: Output | None, base: str, sessions: dict[str, str]
) -> bytes:
    """`api/sessions` (and its .json twin: made once) with each day's entries kept by `output`."""
    if output is None:
        return sessions_body(published, site)

    def kept(day: tuple[Session, ...], first: bool, make: Callable[[], bytes]) -> bytes:
        key = digest(base, "sessions day", first, [sessions[s.id] for s in day])
        return output.part(key, make)

    return published.memo(("sessions parts", site.base_url), lambda: sessions_body(published, site, kept))
