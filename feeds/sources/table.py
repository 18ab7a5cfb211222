"""Reader for schedules in a plain table: CSV, TSV, a JSON array of objects, or a JSON object holding
one such array (organisers' spreadsheets and ad-hoc exports, SCaLE's JSON rows among them).

Each row is a session. Its fields are found by their usual names, compared without case, spaces,
dashes or underscores (`StartTime` is `start_time`):

| field | names recognised |
|---|---|
| title | title, name, session, session_title, talk |
| start | start, start_time, starts, begin, from, start_date_time, datetime, when, time |
| end | end, end_time, ends, finish, to, end_date_time |
| duration | duration, length, minutes (minutes, `HH:MM` or ISO 8601 `PT45M`), when there is no end |
| room | room, location, venue, place, stage, hall |
| track | track, category, topic, theme |
| speakers | speakers, presenters, speaker, presenter, hosts (names split at `,` `;` `&` and " and ", or a list of names or of objects with a `name`) |
| description | description, abstract, summary, details |
| id | id, uid, session_id, key, code |
| url | url, link, web, page |

A mapping names other columns: `--map title=Name,start=StartTime` or a TOML file of `field = "column"`
lines (optionally under `[map]`). Times are ISO 8601 (`2025-03-09T08:00:00-07:00`, `...Z`, or `2025-03-09
08:00` without a zone, read in `--tz`), or Unix seconds. A row without a title or a readable start is a
defect naming its line; a table without title and start columns is not this format.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from feeds.errors import NotASchedule, SourceError
from feeds.sources import register
from feeds.sources.documents import Document
from feeds.sources.records import Person, SessionRecord, SourceBatch, SourceWarning

NAME = "table"
FIELDS: dict[str, tuple[str, ...]] = {
    "title": ("title", "name", "session", "sessiontitle", "talk"),
    "start": ("start", "starttime", "starts", "begin", "from", "startdatetime", "datetime", "when", "time"),
    "end": ("end", "endtime", "ends", "finish", "to", "enddatetime"),
    "duration": ("duration", "length", "minutes"),
    "room": ("room", "location", "venue", "place", "stage", "hall"),
    "track": ("track", "category", "topic", "theme"),
    "speakers": ("speakers", "presenters", "speaker", "presenter", "hosts"),
    "description": ("description", "abstract", "summary", "details"),
    "id": ("id", "uid", "sessionid", "key", "code"),
    "url": ("url", "link", "web", "page"),
}
_MAX_CELL = 100_000  # a cell longer than this is not a schedule's field; bounded memory per row
_DURATION = re.compile(r"^P(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)$", re.I)
_CLOCK = re.compile(r"^(\d{1,3}):(\d{2})$")
_SPLIT = re.compile(r"\s*(?:[,;&]|\band\b)\s*")


def _key(name: str) -> str:
    return re.sub(r"[\s_\-.]", "", name).lower()


def parse_mapping(text: str) -> dict[str, str]:
    """`--map`: "field=Column,field=Column", or the path of a TOML file of `field = "Column"`."""
    path = Path(text)
    if text.endswith(".toml"):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError:
            raise SourceError(f"--map: cannot read {text}") from None
        except tomllib.TOMLDecodeError as exc:
            raise SourceError(f"--map: {text} is not valid TOML ({exc.args[0] if exc.args else 'syntax'})") from None
        table = data.get("map", data)
        pairs = {str(k): v for k, v in table.items()} if isinstance(table, dict) else {}
        if not all(isinstance(v, str) for v in pairs.values()):
            raise SourceError(f"--map: every value in {text} must be a column name in quotes")
        mapping = {k: str(v) for k, v in pairs.items()}
    else:
        mapping = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            field_name, sep, column = part.partition("=")
            if not sep or not column.strip():
                raise SourceError(f"--map: {part!r} is not field=Column (e.g. title=Name)")
            mapping[field_name.strip()] = column.strip()
    unknown = sorted(set(mapping) - set(FIELDS))
    if unknown:
        raise SourceError(f"--map: unknown field {unknown[0]!r}; fields are {', '.join(FIELDS)}")
    return mapping


class TableReader:
    """The reader, with the organiser's mapping (field -> column) on top of the usual names."""

    name = NAME
    label = "table (CSV, TSV or JSON rows)"

    def __init__(self, mapping: Mapping[str, str] | None = None) -> None:
        self.mapping = dict(mapping or {})

    def columns(self, names: Sequence[str]) -> dict[str, str]:
        """{field: column} for the columns of a table."""
        by_key = {_key(n): n for n in names}
        found = {}
        for field_name, aliases in FIELDS.items():
            if field_name in self.mapping:
                if self.mapping[field_name] in names:
                    found[field_name] = self.mapping[field_name]
                continue
            column = next((by_key[a] for a in aliases if a in by_key), None)
            if column is not None:
                found[field_name] = column
        return found

    def recognises(self, document: Document) -> bool:
        table = _table(document.text)
        return table is not None and {"title", "start"} <= set(self.columns(table[0]))

    def read(self, documents: Sequence[Document], tz: str | None) -> SourceBatch:
        records: list[SessionRecord] = []
        defects: list[SourceWarning] = []
        for doc in documents:
            table = _table(doc.text)
            columns = self.columns(table[0]) if table else {}
            if table is None or not {"title", "start"} <= set(columns):
                wanted = ", ".join(f"{f}={c}" for f, c in self.mapping.items()) or "the usual names"
                raise NotASchedule(
                    f"is not a table with title and start columns (looked for {wanted})", source=doc.name
                )
            for line, row in table[1]:
                record = _record(doc.name, line, row, columns, defects)
                if record is not None:
                    records.append(record)
        return SourceBatch(format=NAME, sessions=tuple(records), defects=tuple(defects))


def _table(text: str) -> tuple[list[str], list[tuple[int | None, dict[str, Any]]]] | None:
    """(column names, [(line, row)]) of a CSV/TSV or JSON table, or None when the text is neither."""
    body = text.lstrip("\ufeff \t\r\n")
    if body[:1] in ("[", "{"):
        return _json_table(text)
    first = body.split("\n", 1)[0]
    delimiter = "\t" if "\t" in first else "," if "," in first else ";" if ";" in first else None
    if delimiter is None:
        return None
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline=""), delimiter=delimiter)
    try:
        names = [n for n in (reader.fieldnames or []) if n]
        rows: list[tuple[int | None, dict[str, Any]]] = []
        line = reader.line_num + 1
        for row in reader:
            rows.append((line, {k: v for k, v in row.items() if k}))
            line = reader.line_num + 1
    except csv.Error:
        return None
    return names, rows


def _json_table(text: str) -> tuple[list[str], list[tuple[int | None, dict[str, Any]]]] | None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, dict):
        arrays = [v for v in data.values() if isinstance(v, list) and v and all(isinstance(i, dict) for i in v)]
        if len(arrays) != 1:
            return None
        data = arrays[0]
    if not isinstance(data, list) or not data or not all(isinstance(item, dict) for item in data):
        return None
    names = list(dict.fromkeys(k for item in data for k in item))
    return names, list(zip(_json_lines(text, len(data)), data, strict=True))


def _json_lines(text: str, count: int) -> Iterator[int | None]:
    """The line each object of the array starts on: the n-th `{` at the array's nesting depth."""
    depth, in_string, escaped, found = 0, False, False, 0
    target = None
    for at, char in enumerate(text):
        if in_string:
            escaped = char == "\\" and not escaped
            if char == '"' and not escaped:
                in_string = False
            continue
        if char == '"':
            in_string, escaped = True, False
        elif char in "[{":
            depth += 1
            if char == "[" and target is None:
                target = depth + 1
            elif char == "{" and depth == target:
                found += 1
                yield text.count("\n", 0, at) + 1
        elif char in "]}":
            depth -= 1
    for _ in range(count - found):
        yield None


def _cell(row: Mapping[str, Any], columns: Mapping[str, str], name: str) -> Any:
    column = columns.get(name)
    value = row.get(column) if column is not None else None
    return value.strip()[:_MAX_CELL] if isinstance(value, str) else value


def _record(
    source: str, line: int | None, row: Mapping[str, Any], columns: Mapping[str, str], defects: list[SourceWarning]
) -> SessionRecord | None:
    title = _cell(row, columns, "title")
    title = str(title).strip() if title not in (None, "") else ""
    if not title:
        if any(v not in (None, "") for v in row.values()):
            defects.append(SourceWarning(source, line, f"a row without a {columns['title']}; its session is lost"))
        return None
    start = _time(_cell(row, columns, "start"))
    if start is None:
        raw = _cell(row, columns, "start")
        defects.append(SourceWarning(source, line, f"{title}: {columns['start']} {raw!r} is not a date and time"))
        return None
    end = _time(_cell(row, columns, "end"))
    if end is None:
        duration = _duration(_cell(row, columns, "duration"))
        end = start + duration if duration is not None else start
    if (start.tzinfo is None) != (end.tzinfo is None):
        end = end.astimezone(start.tzinfo) if start.tzinfo else end.replace(tzinfo=None)
    return SessionRecord(
        source=source,
        line=line,
        title=title,
        start=start,
        end=end,
        source_id=_text(_cell(row, columns, "id")) or None,
        description=_text(_cell(row, columns, "description")),
        room=_text(_cell(row, columns, "room")) or None,
        track=_text(_cell(row, columns, "track")) or None,
        speakers=_speakers(_cell(row, columns, "speakers")),
        url=_text(_cell(row, columns, "url")) or None,
    )


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value if _text(v))
    if isinstance(value, dict):
        return _text(value.get("name"))
    return "" if value is None else str(value).strip()


def _time(value: Any) -> datetime | None:
    """An ISO 8601 date-time (with a zone or offset: an instant; without: a wall time), or Unix
    seconds; None when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) or (isinstance(value, str) and value.isdigit() and len(value) >= 9):
        try:
            return datetime.fromtimestamp(float(value), UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    # A date alone is no session time.
    return parsed if ("T" in value or " " in value) else None


def _duration(value: Any) -> timedelta | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return timedelta(minutes=value)
    if not isinstance(value, str):
        return None
    if value.isdigit():
        return timedelta(minutes=int(value))
    if m := _CLOCK.match(value):
        return timedelta(hours=int(m.group(1)), minutes=int(m.group(2)))
    if (m := _DURATION.match(value)) and any(m.groups()):
        hours, minutes, seconds = (int(g or 0) for g in m.groups())
        return timedelta(hours=hours, minutes=minutes, seconds=seconds)
    return None


def _speakers(value: Any) -> tuple[Person, ...]:
    if isinstance(value, list):
        names = [_text(v) for v in value]
    elif isinstance(value, str):
        names = _SPLIT.split(value)
    else:
        names = []
    return tuple(Person(n.strip()) for n in names if n and n.strip())


READER = register(TableReader())
