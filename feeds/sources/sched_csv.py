"""Reader for Sched's session list CSV (the organiser's "export sessions" spreadsheet).

The header row names Sched's export fields (`event_key`, `active`, `name`, `event_start`, ...); the
fields and zone rules are those of feeds.sources.sched_export. `speakers` is one cell of
comma-separated names. Line numbers are the CSV's physical lines (a quoted cell may span several).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from feeds.errors import NotASchedule
from feeds.sources import register
from feeds.sources.documents import Document
from feeds.sources.records import SourceBatch
from feeds.sources.sched_export import Rows, people, read_all

NAME = "sched-csv"
_REQUIRED = {"event_key", "name", "event_start", "event_end"}


class SchedCsvReader:
    name = NAME
    label = "Sched session list CSV"

    def recognises(self, document: Document) -> bool:
        first = document.text.lstrip("\ufeff").split("\n", 1)[0]
        return _REQUIRED <= {cell.strip().strip('"') for cell in first.split(",")}

    def read(self, documents: Sequence[Document], tz: str | None) -> SourceBatch:
        return read_all(NAME, documents, tz, _rows)


def _rows(doc: Document, tz: str | None) -> Rows:
    reader = csv.DictReader(io.StringIO(doc.text.lstrip("\ufeff"), newline=""))
    if not _REQUIRED <= set(reader.fieldnames or ()):
        raise NotASchedule(
            f"is not a Sched session list: the header lacks {', '.join(sorted(_REQUIRED))}", source=doc.name
        )
    rows = Rows(doc.name, tz)
    try:
        line = reader.line_num + 1
        for row in reader:
            rows.add(row, line, people(row.get("speakers") or ""))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise NotASchedule(f"is not readable CSV: {exc}", source=doc.name, line=reader.line_num) from None
    return rows


READER = register(SchedCsvReader())
