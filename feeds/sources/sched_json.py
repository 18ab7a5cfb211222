"""Reader for Sched's API session export (`/api/session/export`, JSON): a list of session objects.

Fields and zone rules are those of feeds.sources.sched_export; here: recognising the JSON, the
`speakers` objects (`name`, `company`) and a line number per session for messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from feeds.errors import NotASchedule
from feeds.sources import register
from feeds.sources.documents import Document
from feeds.sources.records import Person, SourceBatch
from feeds.sources.sched_export import Rows, read_all, text_of

NAME = "sched-json"


class SchedJsonReader:
    name = NAME
    label = "Sched session export JSON"

    def recognises(self, document: Document) -> bool:
        text = document.text
        return text.lstrip().startswith("[") and '"event_start"' in text and '"event_key"' in text

    def read(self, documents: Sequence[Document], tz: str | None) -> SourceBatch:
        return read_all(NAME, documents, tz, _rows)


def _rows(doc: Document, tz: str | None) -> Rows:
    try:
        data = json.loads(doc.text)
    except (ValueError, RecursionError) as exc:
        raise NotASchedule(f"is not valid JSON: {exc}", source=doc.name) from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise NotASchedule("is not a Sched session export: expected a JSON list of sessions", source=doc.name)
    rows = Rows(doc.name, tz)
    position = 0
    for item in data:
        line, position = _line_of(doc.text, item, position)
        rows.add(item, line, _speakers(item.get("speakers")))
    return rows


def _line_of(text: str, item: dict[str, Any], after: int) -> tuple[int | None, int]:
    """The line of the session's `event_key` (or `id`) in the document, searching forward."""
    for key in ("event_key", "id"):
        if isinstance(item.get(key), str | int):
            at = text.find(json.dumps(str(item[key])), after)
            if at >= 0:
                return text.count("\n", 0, at) + 1, at + 1
    return None, after


def _speakers(value: object) -> tuple[Person, ...]:
    if not isinstance(value, list):
        return ()
    found = []
    for speaker in value:
        if isinstance(speaker, dict) and (name := text_of(speaker.get("name"))):
            found.append(Person(name, affiliation=text_of(speaker.get("company")) or None))
    return tuple(found)


READER = register(SchedJsonReader())
