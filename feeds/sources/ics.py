"""Reader for any iCalendar file (RFC 5545): Sched's .ics export, conference tools, hand-made files.

Parsed with the `icalendar` library. One VEVENT is one session, always: a UID that several events
share (a hand-made file giving 88 events 5 UIDs) is kept on each, with a warning, and never collapses
them; the UID is the source id (feeds.identity ignores ids that are not unique).

Times (RFC 5545 §3.3.5): UTC (`...Z`) is an exact instant; `TZID=` an IANA name is a wall time in that
zone, each property in its own (resolved here, refusing a time that does not exist or happens twice
there); DURATION is added to the start's instant; a TZID
defined by the file's own VTIMEZONE block is resolved by icalendar from that block; a floating time
is in the conference zone. A DATE (all-day) value starts at midnight. The calendar states its zone
with `X-WR-TIMEZONE`, else (a common mistake, read with a warning) a `VTIMEZONE:` property naming
one, else the one IANA TZID its events use.

Read per event: SUMMARY (title), DTSTART, DTEND or DURATION, DESCRIPTION, LOCATION (room), the first
CATEGORIES value (track), URL, STATUS:CANCELLED (a cancelled session), UID. The calendar's
X-WR-CALNAME is the conference name.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import icalendar

from feeds.errors import FeedsError, NotASchedule, TimeZoneError
from feeds.sources import register
from feeds.sources.documents import Document
from feeds.sources.records import SessionRecord, SourceBatch, SourceWarning
from feeds.zones import load_zone, resolve_wall

NAME = "ics"
_EVENT_LINE = re.compile(r"^BEGIN:VEVENT\s*$", re.M | re.I)


class IcsReader:
    name = NAME
    label = "iCalendar (.ics)"

    def recognises(self, document: Document) -> bool:
        head = document.text.lstrip("\ufeff \t\n")[:15].upper()
        return head.startswith("BEGIN:VCALENDAR") and "BEGIN:VEVENT" in document.text.upper()

    def read(self, documents: Sequence[Document], tz: str | None) -> SourceBatch:
        calendars = [_Calendar.read(doc) for doc in documents]
        zones = list(dict.fromkeys(c.zone for c in calendars if c.zone))
        names = Counter(c.name for c in calendars if c.name)
        return SourceBatch(
            format=NAME,
            sessions=tuple(r for c in calendars for r in c.records),
            conference=names.most_common(1)[0][0] if names else None,
            zone=zones[0] if len(zones) == 1 else None,
            url=next((d.url for d in documents if d.url), None),
            warnings=tuple(w for c in calendars for w in c.warnings),
        )


@dataclass
class _Calendar:
    source: str
    name: str | None = None
    zone: str | None = None
    records: list[SessionRecord] = field(default_factory=list)
    warnings: list[SourceWarning] = field(default_factory=list)

    def warn(self, line: int | None, message: str) -> None:
        self.warnings.append(SourceWarning(self.source, line, message))

    @classmethod
    def read(cls, doc: Document) -> _Calendar:
        try:
            return cls._read(doc)
        except FeedsError:
            raise
        except Exception as exc:  # noqa: BLE001
            # icalendar fails on malformed files with assorted types (ValueError, AttributeError,
            # IndexError, ...); any of them means the same thing here: not a readable calendar.
            raise NotASchedule(f"is not a readable iCalendar file: {_one_line(exc)}", source=doc.name) from None

    @classmethod
    def _read(cls, doc: Document) -> _Calendar:
        calendar = icalendar.Calendar.from_ical(doc.text)
        found = cls(doc.name, name=_text(calendar.get("X-WR-CALNAME")) or None)
        found.zone = found._stated_zone(calendar)
        lines = [doc.text.count("\n", 0, m.start()) + 1 for m in _EVENT_LINE.finditer(doc.text)]
        events = calendar.walk("VEVENT")
        for n, event in enumerate(events):
            found._event(event, lines[n] if n < len(lines) else None)
        if not events:
            raise NotASchedule("is an iCalendar file without events", source=doc.name)
        uids = Counter(r.source_id for r in found.records if r.source_id)
        for uid, count in sorted(uids.items()):
            if count > 1:
                found.warn(None, f"UID {uid} is used by {count} events; each is kept as its own session")
        used = {r.zone for r in found.records if r.zone}
        if found.zone is None and len(used) == 1:
            found.zone = used.pop()
        return found

    def _stated_zone(self, calendar: Any) -> str | None:
        for key, note in (
            ("X-WR-TIMEZONE", None),
            ("VTIMEZONE", "non-standard line 'VTIMEZONE: {0}' read as the calendar's time zone"),
        ):
            value = _text(calendar.get(key))
            if not value:
                continue
            try:
                zone = load_zone(value).key
            except TimeZoneError:
                self.warn(None, f"{key} {value!r} is not an IANA time zone; ignored")
                continue
            if note:
                self.warn(None, note.format(value))
            return zone
        return None

    def _event(self, event: Any, line: int | None) -> None:
        title = _text(event.get("SUMMARY"))
        if not title:
            self.warn(line, "event without a SUMMARY; skipped")
            return
        try:
            start = event.decoded("DTSTART")
        except (KeyError, ValueError, TypeError):
            self.warn(line, f"{title}: no readable DTSTART; skipped")
            return
        if "RRULE" in event:
            self.warn(line, f"{title}: repeats (RRULE); only its first occurrence is read")
        status = _text(event.get("STATUS")).upper()
        categories = event.get("CATEGORIES")
        start_at, zone = self._time(start, title, line)
        end_at = self._end(event, start, start_at, title, line)
        self.records.append(
            SessionRecord(
                source=self.source,
                line=line,
                title=title,
                start=start_at,
                end=end_at,
                zone=zone,
                source_id=_text(event.get("UID")) or None,
                description=_text(event.get("DESCRIPTION")),
                room=_text(event.get("LOCATION")).strip(" ,") or None,
                track=_first_category(categories),
                url=_text(event.get("URL")) or None,
                cancelled=status == "CANCELLED",
            )
        )

    def _end(self, event: Any, start: date, start_at: datetime, title: str, line: int | None) -> datetime:
        """DTEND in its own zone, or DTSTART plus DURATION (an exact span, added to the start's
        instant: an hour across a DST change is an hour)."""
        try:
            if "DTEND" in event:
                end_at, _ = self._time(event.decoded("DTEND"), title, line)
                return end_at
            if "DURATION" in event:
                duration: timedelta = event.decoded("DURATION")
                return start_at + duration
        except (ValueError, TypeError):
            self.warn(line, f"{title}: unreadable DTEND or DURATION; shown as ending when it starts")
        # RFC 5545 §3.6.1: no end and no duration: a DATE start lasts one day, a DATE-TIME none.
        return start_at if isinstance(start, datetime) else start_at + timedelta(days=1)

    def _time(self, value: date, title: str, line: int | None) -> tuple[datetime, str | None]:
        """A record time and the IANA zone it was stated in. Each property is read in its own zone
        (a DTEND may name another zone than its DTSTART): a wall time in a named zone becomes its
        instant here, refused when it does not exist there or happens twice; a floating time stays
        a wall time in the conference zone."""
        if not isinstance(value, datetime):
            return datetime.combine(value, time()), None  # all day: midnight, conference zone
        if value.tzinfo is None:
            return value, None
        if isinstance(value.tzinfo, ZoneInfo) and value.tzinfo.key not in ("UTC", "Etc/UTC"):
            try:
                return resolve_wall(value.replace(tzinfo=None), value.tzinfo), value.tzinfo.key
            except TimeZoneError as exc:
                raise TimeZoneError(f"{title}: {exc.reason}", source=self.source, line=line) from None
        if value.utcoffset() is None:
            self.warn(line, f"{title}: time zone {value.tzinfo} unknown; read as the conference zone")
            return value.replace(tzinfo=None), None
        return value, None


def _one_line(exc: Exception) -> str:
    # icalendar's messages can quote whole lines of the file, controls and line breaks included.
    text = " ".join(str(exc).split())
    return text if len(text) <= 160 else text[:157] + "..."


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        value = value[0] if value else ""
    return str(value).strip()


def _first_category(value: object) -> str | None:
    groups = value if isinstance(value, list) else [value]
    for group in groups:
        for item in getattr(group, "cats", None) or []:
            if str(item).strip():
                return str(item).strip()
    return None


READER = register(IcsReader())
