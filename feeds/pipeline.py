"""From sources (files, folders, URLs) to one merged schedule: read, recognise, parse, merge."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from feeds.errors import NotASchedule, SourceError
from feeds.merge import merge
from feeds.model import Schedule
from feeds.sources import documents, sched
from feeds.sources.records import ParsedPage, SourceWarning


@dataclass(frozen=True)
class Loaded:
    schedule: Schedule
    warnings: tuple[SourceWarning, ...]


def parse_document(doc: documents.Document) -> ParsedPage:
    page = sched.parse(doc.text, doc.name)
    if not (page.sessions or page.facets or page.zone_label):
        raise NotASchedule(
            "is not a schedule page: no session time line such as "
            "'Tuesday April 7, 2026 11:00 - 11:10 CEST' and no Sched page header",
            source=doc.name,
        )
    return page


def load_schedule(sources: Sequence[str], tz: str | None = None, *, allow_private: bool = False) -> Loaded:
    """Read every source, parse each as a Sched page and merge them; raises SourceError subclasses
    (one line, naming the file and line) for anything that is not a readable schedule."""
    if not sources:
        raise SourceError("no source given")
    docs = [doc for source in sources for doc in documents.read(source, allow_private=allow_private)]
    pages = [parse_document(doc) for doc in docs]
    url = next((d.url for d in docs if d.url), None)
    merged = merge(pages, tz, source_url=url)
    return Loaded(merged.schedule, merged.warnings)
