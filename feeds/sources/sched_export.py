"""What Sched's session exports (the API's JSON and the session list CSV) have in common: one row per
session with the same field names, read here into a neutral record.

Fields read: `name` (title, HTML entities decoded), `event_start`/`event_end` (wall times in the
conference zone, "YYYY-MM-DD HH:MM" with optional ":SS", no zone), `start_time_ts` (Unix seconds, the
only UTC-anchored value: checked against the wall time in the `--tz` zone), `event_type` (Sched's
"Type", the track), `venue` (room), `audience` (level), `description` (HTML to text), `speakers`,
`active` ("N": not active, left out), `id` (Sched's event id, also the UID of its .ics export) or else
`event_key` as the source id. Any key can be missing. Sched exports state no zone: `--tz` is needed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from feeds.errors import TimeZoneError
from feeds.sources.documents import Document
from feeds.sources.records import Person, SessionRecord, SourceBatch, SourceWarning
from feeds.zones import load_zone, resolve_wall

_BREAK = re.compile(r"<\s*(?:br|/p|/div|/li)\s*/?\s*>", re.I)
_TAG = re.compile(r"<[^>]*>")
_BLANKS = re.compile(r"\n{3,}")
_WALL_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S")


def text_of(value: object) -> str:
    """A field as plain text: HTML breaks become line breaks, other tags go, entities are decoded."""
    if value is None:
        return ""
    raw = str(value)
    plain = html.unescape(_TAG.sub("", _BREAK.sub("\n", raw))) if "<" in raw or "&" in raw else raw
    lines = [line.strip() for line in plain.replace("\r\n", "\n").split("\n")]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip()


def wall_time(value: object) -> datetime | None:
    text = str(value or "").strip()
    for fmt in _WALL_FORMATS:
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


@dataclass
class Rows:
    """Collects the records of one export document."""

    source: str
    tz: str | None
    records: list[SessionRecord] = field(default_factory=list)
    warnings: list[SourceWarning] = field(default_factory=list)
    inactive: int = 0

    def add(self, row: Mapping[str, object], line: int | None, speakers: tuple[Person, ...]) -> None:
        if str(row.get("active") or "Y").strip().upper() == "N":
            self.inactive += 1
            return
        title = text_of(row.get("name"))
        start, end = wall_time(row.get("event_start")), wall_time(row.get("event_end"))
        if not title or start is None:
            what = "no name" if not title else f"no readable event_start ({row.get('event_start')!r})"
            self.warnings.append(SourceWarning(self.source, line, f"{title or 'session'}: {what}; skipped"))
            return
        if end is None or end < start:
            self.warnings.append(
                SourceWarning(self.source, line, f"{title}: no readable event_end; shown as ending when it starts")
            )
            end = start
        self._check_anchor(title, start, row.get("start_time_ts"), line)
        self.records.append(
            SessionRecord(
                source=self.source,
                line=line,
                title=title,
                start=start,
                end=end,
                source_id=_text_or_none(row.get("id")) or _text_or_none(row.get("event_key")),
                description=text_of(row.get("description")),
                room=_text_or_none(row.get("venue")),
                track=_text_or_none(row.get("event_type")),
                level=_text_or_none(row.get("audience")),
                speakers=speakers,
                url=_text_or_none(row.get("url")),
            )
        )

    def _check_anchor(self, title: str, start: datetime, stamp: object, line: int | None) -> None:
        """The wall time read in the `--tz` zone must be the instant start_time_ts gives."""
        if not self.tz or not str(stamp or "").strip().isdigit():
            return
        anchored = datetime.fromtimestamp(int(str(stamp).strip()), UTC)
        try:
            local = resolve_wall(start, load_zone(self.tz))
        except TimeZoneError as exc:
            raise TimeZoneError(f"{title}: {exc}", source=self.source, line=line) from None
        if local != anchored:
            raise TimeZoneError(
                f"{title}: event_start {start:%Y-%m-%d %H:%M} in {self.tz} is {local:%Y-%m-%d %H:%M} UTC, but "
                f"start_time_ts says {anchored:%Y-%m-%d %H:%M} UTC: the conference is not in {self.tz}; check --tz",
                source=self.source,
                line=line,
            )

    def done(self) -> list[SourceWarning]:
        if self.inactive:
            self.warnings.append(
                SourceWarning(self.source, None, f"{self.inactive} inactive sessions (active = N) left out")
            )
        return self.warnings


def _text_or_none(value: object) -> str | None:
    text = text_of(value)
    return text or None


def people(names: str) -> tuple[Person, ...]:
    """The CSV's speakers cell: names separated by commas, with HTML entities."""
    return tuple(Person(name) for part in html.unescape(names).split(",") if (name := part.strip()))


def read_all(
    format: str, documents: Sequence[Document], tz: str | None, rows: Callable[[Document, str | None], Rows]
) -> SourceBatch:
    """One batch of every document's rows, read by the format's `rows` function."""
    rows_of = [rows(doc, tz) for doc in documents]
    return SourceBatch(
        format=format,
        sessions=tuple(r for found in rows_of for r in found.records),
        url=next((d.url for d in documents if d.url), None),
        warnings=tuple(w for found in rows_of for w in found.done()),
    )
