"""From sources (files, folders, URLs) to one merged schedule: read, detect each document's format by
its content, let each format's reader read its documents, merge the records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import time

from feeds.errors import NotASchedule, SourceError
from feeds.merge import merge
from feeds.model import Schedule
from feeds.sources import Reader, documents
from feeds.sources.formats import by_name, readers
from feeds.sources.records import SourceBatch, SourceWarning
from feeds.sources.table import NAME as TABLE
from feeds.sources.table import TableReader


@dataclass(frozen=True)
class Loaded:
    schedule: Schedule
    warnings: tuple[SourceWarning, ...]
    # Data the sources lost (an unreadable time line, a session cut off): an ingest refuses them
    # unless forced. Each reads "file:line: session title: what".
    defects: tuple[SourceWarning, ...] = ()
    formats: tuple[str, ...] = ()  # the readers used, in detection order


def detect(document: documents.Document, mapping: Mapping[str, str] | None = None) -> Reader:
    """The first reader (in feeds.sources.formats order) that recognises the document's content;
    `mapping` (`--map`) names the plain table reader's columns."""
    tried = _with_mapping(readers(), mapping)
    for reader in tried:
        if reader.recognises(document):
            return reader
    names = ", ".join(r.label for r in tried)
    raise NotASchedule(f"is not a schedule in a format confcal reads (tried: {names})", source=document.name)


def _with_mapping(found: Sequence[Reader], mapping: Mapping[str, str] | None) -> tuple[Reader, ...]:
    return tuple(TableReader(mapping) if mapping and r.name == TABLE else r for r in found)


def forced(name: str, mapping: Mapping[str, str] | None = None) -> Reader:
    reader = by_name(name)
    if reader is not None:
        reader = _with_mapping([reader], mapping)[0]
    if reader is None:
        known = ", ".join(r.name for r in readers())
        raise SourceError(f"unknown format {name!r}; known formats: {known}")
    return reader


def read_batches(
    docs: Sequence[documents.Document],
    tz: str | None,
    *,
    format: str | None = None,
    mapping: Mapping[str, str] | None = None,
) -> list[SourceBatch]:
    """One batch per reader, for the documents detected (or forced) as its format."""
    groups: dict[str, tuple[Reader, list[documents.Document]]] = {}
    for doc in docs:
        reader = forced(format, mapping) if format else detect(doc, mapping)
        groups.setdefault(reader.name, (reader, []))[1].append(doc)
    order = {r.name: i for i, r in enumerate(readers())}
    return [reader.read(group, tz) for reader, group in sorted(groups.values(), key=lambda g: order[g[0].name])]


def load_schedule(
    sources: Sequence[str],
    tz: str | None = None,
    *,
    allow_private: bool = False,
    format: str | None = None,
    conference: str | None = None,
    mapping: Mapping[str, str] | None = None,
    day_change: time | None = None,
) -> Loaded:
    """Read every source, detect its format, read and merge; raises SourceError subclasses (one line,
    naming the file and line) for anything that is not a readable schedule. `mapping` (`--map`)
    names a plain table's columns (feeds.sources.table)."""
    if not sources:
        raise SourceError("no source given")
    docs = documents.read_all(sources, allow_private=allow_private)
    return load_documents(docs, tz, format=format, conference=conference, mapping=mapping, day_change=day_change)


def load_documents(
    docs: Sequence[documents.Document],
    tz: str | None = None,
    *,
    format: str | None = None,
    conference: str | None = None,
    mapping: Mapping[str, str] | None = None,
    day_change: time | None = None,
) -> Loaded:
    """The schedule in documents already read (a source refresh fetches its own, conditionally);
    the same rules as `load_schedule`."""
    if not docs:
        raise SourceError("no source given")
    batches = read_batches(docs, tz, format=format, mapping=mapping)
    if not any(b.sessions for b in batches):
        # Say which documents, and what each lost: "nothing found" alone hides the defect.
        lost = "; ".join(str(d) for b in batches for d in b.defects)
        where = ", ".join(d.name for d in docs)
        raise NotASchedule(f"no session with a title and a time found in {where}" + (f" ({lost})" if lost else ""))
    url = next((d.url for d in docs if d.url), None)
    merged = merge(batches, tz, source_url=url, slug=conference, day_change=day_change)
    defects = tuple(d for b in batches for d in b.defects)
    return Loaded(merged.schedule, merged.warnings, defects, tuple(b.format for b in batches))


def refusal(defects: Sequence[SourceWarning]) -> str:
    """Why an ingest with damaged sources is refused (by `confcal ingest` unless --force, and by
    every source refresh): every defect, one per line, as file:line: session title: what was lost."""
    count = f"{len(defects)} place" if len(defects) == 1 else f"{len(defects)} places"
    head = (
        f"ingest refused: the sources lost data in {count}, nothing was stored "
        "(fix the sources, or use --force to ingest what could be read):"
    )
    return "\n".join([head, *(f"  {defect}" for defect in defects)])
