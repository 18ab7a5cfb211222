"""What frab's schedule.xml and schedule.json share: durations, start times, the stated zone, markup.

Both formats (written by pentabarf, frab, pretalx and the c3voc tools) give each event a `date`
(ISO 8601 with its UTC offset: the exact start), a wall-clock `start` and a `duration`; older files
omit `date`, and then the start is the day's date plus `start`, moved to the next day when it is
before the conference's `day_change` (a 01:00 event on the evening schedule of day 1 happens on
day 2's date).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from html.parser import HTMLParser

from feeds.errors import SourceError, TimeZoneError
from feeds.sources.records import SourceBatch, SourceWarning
from feeds.zones import load_zone

# HH:MM ("00:30", "25:00") or D:HH:MM ("1:02:00", a day and two hours): frab writes a duration of
# a day or more with the day count in front. Three parts are never read as HH:MM:SS.
_DURATION = re.compile(r"^(?:(\d{1,2}):)?(\d{1,3}):([0-5]\d)$")
_WALL = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$")


def parse_duration(text: str, *, source: str, line: int | None, field: str = "duration") -> timedelta:
    """`HH:MM` or `D:HH:MM` as a timedelta; anything else raises SourceError naming the field."""
    m = _DURATION.match(text.strip())
    if not m:
        raise SourceError(f"{field} {text!r} is not HH:MM or D:HH:MM", source=source, line=line)
    days, hours, minutes = int(m.group(1) or 0), int(m.group(2)), int(m.group(3))
    if m.group(1) is not None and hours > 23:
        raise SourceError(f"{field} {text!r}: D:HH:MM with {hours} hours", source=source, line=line)
    return timedelta(days=days, hours=hours, minutes=minutes)


def parse_wall(text: str, *, source: str, line: int | None, field: str = "start") -> time:
    m = _WALL.match(text.strip())
    if not m:
        raise SourceError(f"{field} {text!r} is not HH:MM", source=source, line=line)
    return time(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def parse_instant(text: str, *, source: str, line: int | None, field: str = "date") -> datetime:
    """An ISO 8601 date-time; aware when the text carries an offset (the usual case), else naive."""
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise SourceError(f"{field} {text!r} is not an ISO 8601 date and time", source=source, line=line) from None


def parse_day(text: str, *, source: str, line: int | None, field: str = "date") -> date:
    try:
        return date.fromisoformat(text.strip()[:10])
    except ValueError:
        raise SourceError(f"{field} {text!r} is not a date (YYYY-MM-DD)", source=source, line=line) from None


def event_start(
    stamp: str | None,
    day: date | None,
    wall: str | None,
    day_change: time | None,
    *,
    source: str,
    line: int | None,
) -> datetime:
    """The start of one event: `date` when given (exact when it has an offset), else the day plus
    the wall `start`, a day later when before `day_change` (a naive wall time in the stated zone)."""
    if stamp and stamp.strip():
        return parse_instant(stamp, source=source, line=line)
    if day is None or not wall:
        raise SourceError("event has no date and no day plus start time", source=source, line=line)
    clock = parse_wall(wall, source=source, line=line)
    start = datetime.combine(day, clock)
    if day_change is not None and clock < day_change:
        start += timedelta(days=1)
    return start


def fixed_zone_name(offset: timedelta) -> str | None:
    """The IANA name of a whole-hour fixed offset (+01:00 -> Etc/GMT-1: POSIX signs are inverted)."""
    seconds = int(offset.total_seconds())
    if seconds % 3600 or abs(seconds) > 14 * 3600:
        return None
    hours = seconds // 3600
    return "Etc/UTC" if hours == 0 else f"Etc/GMT{-hours:+d}"


def stated_zone(
    name: str | None, starts: Sequence[datetime], *, source: str, line: int | None = None
) -> tuple[str | None, str | None]:
    """The zone the source states, checked against the offsets its events carry.

    Returns (zone, warning). An IANA `time_zone_name` whose offset disagrees with an event's explicit
    offset is not trusted (pretalx's democon says UTC while every date is +01:00): the dates win, and
    the zone becomes their fixed offset when they all share one. No name gives no zone.
    """
    offsets = {offset for offset in (s.utcoffset() for s in starts) if offset is not None}
    if not name or not name.strip():
        return None, None
    zone_name = name.strip()
    try:
        zone = load_zone(zone_name)
    except TimeZoneError:
        raise TimeZoneError(
            f"time_zone_name {zone_name!r} is not an IANA time zone such as Europe/Berlin", source=source, line=line
        ) from None
    clash = next(
        (s for s in starts if s.utcoffset() is not None and s.astimezone(zone).utcoffset() != s.utcoffset()),
        None,
    )
    if clash is None:
        return zone_name, None
    fixed = fixed_zone_name(next(iter(offsets))) if len(offsets) == 1 else None
    offset = clash.isoformat()[19:]
    return fixed, (
        f"time_zone_name says {zone_name} but event dates are {offset} "
        f"(e.g. {clash.isoformat()}); the dates' offsets are used" + (f", conference zone {fixed}" if fixed else "")
    )


class _Text(HTMLParser):
    # Block elements end a line; everything else is inline text.
    _BLOCKS = frozenset(
        {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "tr"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "li":
            self.parts.append("\n- ")
        elif tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._BLOCKS and tag != "li":  # the next item or the list's end breaks the line
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


_HTML_HINT = re.compile(r"</?(?:p|br|div|ul|ol|li|a|em|strong|b|i|code|h\d)\b[^>]*>", re.IGNORECASE)


def plain_text(text: str | None) -> str:
    """Description text without HTML (FOSDEM writes `<p>` markup; calendar apps show text only).
    Text without tags (pretalx's Markdown) is kept as written."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _HTML_HINT.search(text):
        parser = _Text()
        parser.feed(text)
        parser.close()
        text = "".join(parser.parts)
        lines = [" ".join(line.split()) for line in text.split("\n")]
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return text.strip()


def raise_unreadable(defects: Sequence[SourceWarning]) -> None:
    """No event of a document could be read: that is not a schedule with defects but a broken file;
    say so with the first defect (its file and line), in one line."""
    first = defects[0]
    more = f" (and {len(defects) - 1} more unreadable events)" if len(defects) > 1 else ""
    raise SourceError(f"no event can be read: {first.message}{more}", source=first.source, line=first.line)


def is_name(text: str) -> bool:
    """False for placeholder persons ("-", "--": FOSDEM lists them), which name nobody."""
    return any(c.isalnum() for c in text)


def join_text(*parts: str | None) -> str:
    """Abstract and description as one text, the empty ones (and a repeat) left out."""
    texts: list[str] = []
    for text in (plain_text(x) for x in parts):
        if text and text not in texts:
            texts.append(text)
    return "\n\n".join(texts)


_RECORDING = re.compile(r"\b(recording|video|vod|media\.ccc\.de)\b", re.I)
_STREAM = re.compile(r"\b(stream|live)\b", re.I)
_CHAT = re.compile(r"\b(chat|matrix|irc)\b", re.I)


def link_kind(title: str, url: str) -> str:
    """What a frab <link> is, from its title and address: a recording, a stream, a chat room or a
    plain link (frab itself gives links no type)."""
    text = f"{title} {url}"
    for kind, pattern in (("recording", _RECORDING), ("stream", _STREAM), ("chat", _CHAT)):
        if pattern.search(text):
            return kind
    return "link"


def joined_batches(format_name: str, batches: Sequence[SourceBatch]) -> SourceBatch:
    """The batches of several documents of one schedule (one per day or per room, as some
    conferences publish) as one: their sessions, warnings and defects in order, the first's name
    and link, the zone they state and the first day change stated. Documents stating different
    zones are refused: their sessions' wall times could not all be right."""
    zones = {b.zone for b in batches if b.zone}
    if len(zones) > 1:
        raise SourceError(f"the documents state different time zones: {', '.join(sorted(zones))}")
    first = batches[0]
    return SourceBatch(
        format=format_name,
        sessions=tuple(s for b in batches for s in b.sessions),
        conference=first.conference,
        zone=next(iter(zones), None),
        url=first.url,
        warnings=tuple(w for b in batches for w in b.warnings),
        defects=tuple(d for b in batches for d in b.defects),
        day_change=next((b.day_change for b in batches if b.day_change is not None), None),
    )
