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
from collections.abc import Callable, Sequence
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
        head = document.text.lstrip("\ufeff \t\r\n")[:15].upper()
        return head.startswith("BEGIN:VCALENDAR")

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
            defects=tuple(d for c in calendars for d in c.defects),
        )


@dataclass
class _Calendar:
    source: str
    lines: list[tuple[int, str]]  # the unfolded content lines and where each starts
    name: str | None = None
    zone: str | None = None
    records: list[SessionRecord] = field(default_factory=list)
    warnings: list[SourceWarning] = field(default_factory=list)
    defects: list[SourceWarning] = field(default_factory=list)
    unreadable_zones: dict[str, tuple[int, str]] = field(default_factory=dict)  # TZID: line, why

    def warn(self, line: int | None, message: str) -> None:
        self.warnings.append(SourceWarning(self.source, line, message))

    def defect(self, line: int | None, message: str) -> None:
        self.defects.append(SourceWarning(self.source, line, message))

    @classmethod
    def read(cls, doc: Document) -> _Calendar:
        try:
            return cls._read(doc)
        except FeedsError:
            raise
        except Exception:  # noqa: BLE001
            # icalendar fails on malformed files with assorted types (ValueError, AttributeError,
            # IndexError, ...); its words are Python's, so find the place and say it in ours.
            line, what = _first_damage(doc.text) or (1, "its content cannot be parsed")
            raise NotASchedule(f"is not a readable iCalendar file: {what}", source=doc.name, line=line) from None

    @classmethod
    def _read(cls, doc: Document) -> _Calendar:
        found = cls(doc.name, _content_lines(doc.text))
        if damage := _first_damage(doc.text, structure_only=True):
            # icalendar closes what is left open and drops what it cannot place: sessions lost.
            raise NotASchedule(f"is not a readable iCalendar file: {damage[1]}", source=doc.name, line=damage[0])
        # A file can hold several VCALENDARs one after the other (concatenated exports): all are read.
        calendars = icalendar.Calendar.from_ical(found._without_unreadable_zones(doc.text), multiple=True)
        names = [_text(c.get("X-WR-CALNAME")) for c in calendars]
        found.name = next((n for n in names if n), None)
        found.zone = next((z for z in map(found._stated_zone, calendars) if z), None)
        lines = [doc.text.count("\n", 0, m.start()) + 1 for m in _EVENT_LINE.finditer(doc.text)]
        events = [e for c in calendars for e in c.walk("VEVENT")]
        for n, event in enumerate(events):
            found._event(event, lines[n] if n < len(lines) else None)
        if not events:
            raise NotASchedule("is an iCalendar file that holds no events", source=doc.name, line=1)
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
        if "DTSTART" not in event:
            self.defect(line, f"{title}: no DTSTART, so it cannot be placed")
            return
        start = self._decoded(event, "DTSTART", title, line)
        if start is None:
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
        if "DTEND" in event:
            end = self._decoded(event, "DTEND", title, line)
            if end is not None:
                end_at, _ = self._time(end, title, line)
                return end_at
        elif "DURATION" in event:
            duration = _safely(lambda: event.decoded("DURATION"))
            if isinstance(duration, timedelta):
                return start_at + duration
            self.warn(
                self._line_of("DURATION", line),
                f"{title}: DURATION is not a duration such as PT1H; shown as ending when it starts",
            )
        # RFC 5545 §3.6.1: no end and no duration: a DATE start lasts one day, a DATE-TIME none.
        return start_at if isinstance(start, datetime) else start_at + timedelta(days=1)

    def _without_unreadable_zones(self, text: str) -> str:
        """`text` without the VTIMEZONEs icalendar cannot work out (it fails on them, in Python's
        words, while parsing the whole file). An IANA TZID is then read from tzdata, with a
        warning; the events of any other are defects (`_decoded`)."""
        lines = text.splitlines(keepends=True)
        kept: list[str] = []
        block: list[str] = []
        first = 0
        for n, line in enumerate(lines, 1):
            upper = line.strip().upper()
            if upper == "BEGIN:VTIMEZONE":
                block, first = [line], n
                continue
            if not block:
                kept.append(line)
                continue
            block.append(line)
            if upper != "END:VTIMEZONE":
                continue
            tzid = next((b.strip()[5:] for b in block if b.upper().startswith("TZID:")), "")
            # icalendar works a VTIMEZONE out as it parses it, and fails then if it cannot.
            readable = _safely(lambda: icalendar.Timezone.from_ical("".join(block)).to_tz(lookup_tzid=False))  # type: ignore[attr-defined]
            if readable is not None or not tzid:
                kept.extend(block)
            else:
                why = _why_unreadable("".join(block).upper())
                try:
                    load_zone(tzid)
                    self.warn(
                        first, f"VTIMEZONE {tzid} cannot be read ({why}); its times are read in the IANA zone {tzid}"
                    )
                except TimeZoneError:
                    self.unreadable_zones[tzid] = (first, why)
            block = []
        return "".join(kept + block)

    def _decoded(self, event: Any, name: str, title: str, line: int | None) -> date | None:
        """A DTSTART or DTEND value, or None after recording why it cannot be read (a defect: the
        session is lost). A TZID whose VTIMEZONE in the file cannot be worked out is read with
        the IANA zone of that name, when there is one, with a warning."""
        where = self._line_of(name, line)
        tzid = str(event[name].params.get("TZID", ""))
        if tzid in self.unreadable_zones:
            block_line, why = self.unreadable_zones[tzid]
            self.defect(block_line, f"VTIMEZONE {tzid} cannot be read ({why}), so {title} cannot be placed")
            return None
        try:
            value = event.decoded(name)
        except Exception:  # noqa: BLE001
            # icalendar builds a TZID's zone from the file's VTIMEZONE when the time is first
            # decoded, and fails with assorted types (ValueError, TypeError, ...) on one it cannot follow.
            return self._in_named_zone(event, name, title, where)
        if isinstance(value, date):
            return value
        raw = _text(value)
        self.defect(
            where, f"{title}: {name} {raw!r} is not an iCalendar date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS)"
        )
        return None

    def _in_named_zone(self, event: Any, name: str, title: str, where: int | None) -> date | None:
        tzid = str(event[name].params.get("TZID", ""))
        block_line, why = self._vtimezone(tzid)
        raw = next((value for n, text in self.lines if n == where for value in [text.partition(":")[2]]), "")
        wall = _safely(lambda: icalendar.vDDDTypes.from_ical(raw.strip()))  # type: ignore[no-untyped-call]
        try:
            zone = load_zone(tzid)
        except TimeZoneError:
            self.defect(block_line, f"VTIMEZONE {tzid} cannot be read ({why}), so {title} cannot be placed")
            return None
        if not isinstance(wall, datetime):
            self.defect(where, f"{title}: {name} {raw!r} is not an iCalendar date-time (YYYYMMDDTHHMMSS)")
            return None
        self.warn(block_line, f"VTIMEZONE {tzid} cannot be read ({why}); its times are read in the IANA zone {tzid}")
        return wall.replace(tzinfo=zone)

    def _vtimezone(self, tzid: str) -> tuple[int | None, str]:
        """Where the file defines `tzid`, and what in that definition confcal cannot follow."""
        start: int | None = None
        block: list[str] = []
        for n, text in self.lines:
            upper = text.upper()
            if upper == "BEGIN:VTIMEZONE":
                start, block = n, []
            elif start is not None:
                block.append(upper)
                if upper == "END:VTIMEZONE":
                    if f"TZID:{tzid.upper()}" in block:
                        break
                    start = None
        if start is None:
            return None, "the file does not define it"
        return start, _why_unreadable("\n".join(block))

    def _line_of(self, name: str, event_line: int | None) -> int | None:
        """The line of the event's `name` property (the first after its BEGIN:VEVENT)."""
        if event_line is None:
            return None
        for n, text in self.lines:
            if n > event_line and text.upper().startswith((f"{name}:", f"{name};")):
                return n
            if n > event_line and text.upper() == "END:VEVENT":
                break
        return event_line

    def _time(self, value: date, title: str, line: int | None) -> tuple[datetime, str | None]:
        """A record time and the IANA zone it was stated in. Each property is read in its own zone
        (a DTEND may name another zone than its DTSTART): a wall time in a named zone becomes its
        instant here, refused when it does not exist there or happens twice; a floating time stays
        a wall time in the conference zone."""
        if not isinstance(value, datetime):
            return datetime.combine(value, time()), None  # all day: midnight, conference zone
        if value.tzinfo is None:
            # A floating time is in the zone the calendar states (X-WR-TIMEZONE), else the
            # conference's; so `--tz` giving a UTC-stated calendar its place moves no instant.
            return value, self.zone
        if isinstance(value.tzinfo, ZoneInfo) and value.tzinfo.key not in ("UTC", "Etc/UTC"):
            try:
                return resolve_wall(value.replace(tzinfo=None), value.tzinfo), value.tzinfo.key
            except TimeZoneError as exc:
                raise TimeZoneError(f"{title}: {exc.reason}", source=self.source, line=line) from None
        if value.utcoffset() is None:
            self.warn(line, f"{title}: time zone {value.tzinfo} unknown; read as the conference zone")
            return value.replace(tzinfo=None), None
        return value, None


_NAME = re.compile(r"^([A-Za-z0-9-]+)[;:]")


def _content_lines(text: str) -> list[tuple[int, str]]:
    """The unfolded content lines (RFC 5545 3.1) with the number of the line each starts on."""
    found: list[tuple[int, str]] = []
    for n, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        if line[:1] in (" ", "\t") and found:
            found[-1] = (found[-1][0], found[-1][1] + line[1:])
        elif line.strip():
            found.append((n, line))
    return found


def _first_damage(text: str, *, structure_only: bool = False) -> tuple[int, str] | None:
    """The first line that breaks the file's structure (BEGIN/END nesting, and unless
    `structure_only` a line that is no content line), and how, in our words."""
    open_blocks: list[tuple[str, int]] = []
    for n, line in _content_lines(text):
        m = _NAME.match(line)
        if not m:
            if structure_only:
                continue
            return n, f"line {line[:40]!r} is not an iCalendar content line (NAME:value)"
        name, value = m.group(1).upper(), line.partition(":")[2].strip().upper()
        if name == "BEGIN":
            open_blocks.append((value, n))
        elif name == "END":
            if not open_blocks:
                return n, f"END:{value} closes nothing that is open"
            if open_blocks[-1][0] != value:
                inner, begun = open_blocks[-1]
                return n, f"END:{value} comes while BEGIN:{inner} (line {begun}) is still open"
            open_blocks.pop()
    if open_blocks:
        value, n = open_blocks[-1]
        return n, f"BEGIN:{value} is never closed by END:{value}"
    return None


def _why_unreadable(block: str) -> str:
    """What confcal cannot follow in an (upper-cased) VTIMEZONE, in our words."""
    if "VALUE=PERIOD" in block:
        return "its onsets are given as RDATE periods"
    return "its STANDARD and DAYLIGHT onsets cannot be worked out"


def _safely(read: Callable[[], object]) -> object:
    """What `read` returns, or None when icalendar cannot decode the value."""
    try:
        return read()
    except Exception:  # noqa: BLE001 - icalendar raises assorted types on a malformed value
        return None


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
