"""Reader for pentabarf / frab / c3voc `schedule.xml` (FOSDEM, CCC congresses and camps, pretalx).

    <schedule><conference><title/><time_zone_name/><day_change/></conference>
      <day date="2025-02-01"><room name="K.3.201">
        <event guid="…" id="6210"><date>2025-02-01T10:35:00+01:00</date><start>10:35</start>
          <duration>00:25</duration><room/><title/><track/><type/><abstract/><description/>
          <persons><person>…</person></persons><links><link href="…"/></links><url/></event>

The event's `date` is its exact start; without it, the day's date plus `start` and `day_change`
(feeds.sources.frab_common). The `guid` is the source id (the numeric `id` when there is none).
XML from outside is parsed by defusedxml: entity declarations and external references are refused
(a "billion laughs" document cannot expand), so only the document's own text is read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, time
from typing import Any
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from feeds.errors import NotASchedule, SourceError
from feeds.model import Link
from feeds.sources import register
from feeds.sources.documents import Document
from feeds.sources.frab_common import (
    event_start,
    is_name,
    join_text,
    joined_batches,
    link_kind,
    parse_day,
    parse_duration,
    parse_wall,
    raise_unreadable,
    stated_zone,
)
from feeds.sources.records import Person, SessionRecord, SourceBatch, SourceWarning
from feeds.web_links import web_link

# The root element, after an optional declaration, comments and a DOCTYPE (whose internal subset
# may hold the entity declarations the parser then refuses, with a message saying so).
_ROOT = re.compile(
    r"\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>\s*)*<schedule[\s>/]",
    re.DOTALL,
)
_HEAD = 65536
# Where each element starts, kept as a reserved attribute while parsing (for messages).
_LINE = "{confcal}line"


class _LineBuilder(TreeBuilder):
    """A TreeBuilder that records each element's line number from the expat parser feeding it."""

    def __init__(self) -> None:
        super().__init__()
        self.expat: Any = None

    def start(self, tag: Any, attrs: dict[Any, Any]) -> Element:
        return super().start(tag, {**attrs, _LINE: str(self.expat.CurrentLineNumber)})


def parse_xml(text: str, source: str) -> Element:
    """The document's root element; one-line SourceError for malformed or dangerous XML."""
    builder = _LineBuilder()
    parser = DefusedXMLParser(target=builder)
    builder.expat = parser.parser
    try:
        parser.feed(text)
        root: Element = parser.close()
    except ParseError as exc:
        line, column = exc.position
        reason = str(exc).split(":")[0]
        raise SourceError(f"is not well-formed XML: {reason} (column {column + 1})", source=source, line=line) from None
    except DefusedXmlException as exc:
        line = builder.expat.CurrentLineNumber
        raise SourceError(
            f"XML refused: {type(exc).__name__} (entity declarations and external references are not allowed)",
            source=source,
            line=line,
        ) from None
    return root


def _line(element: Element) -> int | None:
    value = element.get(_LINE)
    return int(value) if value else None


def _text(element: Element, tag: str) -> str | None:
    found = element.find(tag)
    if found is None or found.text is None:
        return None
    return found.text.strip() or None


def _url(event: Element) -> str | None:
    """The event's own <url>, else its first <link href>, the first that is an http(s) link; with
    none, the first given, which the merge drops with a warning naming it (feeds.web_links)."""
    given = [
        u
        for u in (_text(event, "url"), *((link.get("href") or "").strip() for link in event.iterfind("links/link")))
        if u
    ]
    return next((u for u in given if web_link(u)), given[0] if given else None)


def _common_day_start(root: Element) -> time | None:
    """The time most of the <day>s start at (c3voc exports give `start` and no `day_change`: 38C3's
    days start at 06:00), as written in the file."""
    starts: Counter[time] = Counter()
    for day in root.iterfind("day"):
        try:
            starts[datetime.fromisoformat(day.get("start") or "").time()] += 1
        except ValueError:
            continue
    return starts.most_common(1)[0][0] if starts else None


class FrabXmlReader:
    name = "frab-xml"
    label = "frab/pentabarf schedule.xml"

    def recognises(self, document: Document) -> bool:
        return _ROOT.match(document.text[:_HEAD]) is not None

    def read(self, documents: Sequence[Document], tz: str | None) -> SourceBatch:
        return joined_batches(self.name, [self._read_one(doc) for doc in documents])

    def _read_one(self, doc: Document) -> SourceBatch:
        root = parse_xml(doc.text, doc.name)
        if root.tag != "schedule":
            raise NotASchedule(f"root element is <{root.tag}>, not <schedule>", source=doc.name, line=_line(root))
        conference = root.find("conference")
        if conference is None:
            raise NotASchedule("has no <conference> element", source=doc.name, line=_line(root))
        change_text = _text(conference, "day_change")
        day_change = (
            parse_wall(change_text, source=doc.name, line=_line(conference), field="day_change")
            if change_text
            else None
        )
        found: list[tuple[Element, Element, datetime]] = []
        defects: list[SourceWarning] = []
        stated_change = day_change or _common_day_start(root)
        for day in root.iterfind("day"):
            day_text = day.get("date")
            for room in day.iterfind("room"):
                for event in room.iterfind("event"):
                    try:
                        day_date = parse_day(day_text, source=doc.name, line=_line(day)) if day_text else None
                        start = event_start(
                            _text(event, "date"),
                            day_date,
                            _text(event, "start"),
                            day_change,
                            source=doc.name,
                            line=_line(event),
                        )
                    except SourceError as exc:
                        defects.append(SourceWarning(doc.name, _line(event), _reason(exc)))
                        continue
                    found.append((room, event, start))
        if not found and not defects:
            raise NotASchedule("holds no <event> in any <day>/<room>", source=doc.name, line=_line(root))
        zone, clash = stated_zone(
            _text(conference, "time_zone_name"), [s for _, _, s in found], source=doc.name, line=_line(conference)
        )
        warnings = [SourceWarning(doc.name, _line(conference), clash)] if clash else []
        sessions: list[SessionRecord] = []
        for room, event, start in found:
            try:
                sessions.append(self._record(doc.name, room, event, start, zone))
            except SourceError as exc:
                defects.append(SourceWarning(doc.name, _line(event), _reason(exc)))
        if not sessions:
            raise_unreadable(defects)
        return SourceBatch(
            format=self.name,
            sessions=tuple(sessions),
            conference=_text(conference, "title"),
            zone=zone,
            url=_text(conference, "url") or _text(conference, "base_url") or doc.url,
            warnings=tuple(warnings),
            defects=tuple(defects),
            day_change=stated_change,
        )

    def _record(self, source: str, room: Element, event: Element, start: datetime, zone: str | None) -> SessionRecord:
        line = _line(event)
        title = _text(event, "title")
        if not title:
            raise SourceError("event has no title", source=source, line=line)
        duration = parse_duration(_text(event, "duration") or "", source=source, line=line)
        speakers = tuple(
            Person(name=" ".join(p.text.split()))
            for p in event.iterfind("persons/person")
            if p.text and is_name(p.text)
        )
        return SessionRecord(
            source=source,
            line=line,
            title=" ".join(title.split()),
            start=start,
            end=start + duration,
            zone=zone if start.tzinfo is None else None,
            source_id=event.get("guid") or event.get("id"),
            description=join_text(_text(event, "abstract"), _text(event, "description")),
            room=_text(event, "room") or room.get("name"),
            track=_text(event, "track"),
            kind=_text(event, "type"),
            speakers=speakers,
            url=_url(event),
            slides=any(a.get("type") == "slides" for a in event.iterfind("attachments/attachment")),
            links=_links(event),
            language=_text(event, "language") or None,
            subtitle=_text(event, "subtitle") or None,
            do_not_record=(_text(event, "recording/optout") or "").strip().lower() == "true",
        )


def _links(event: Element) -> tuple[Link, ...]:
    """The event's <links> and <attachments> (recordings, slides, chat rooms ...), as written; the
    merge keeps the http(s) ones. The event's own <url> repeated there is its URL, not another link."""
    found = []
    own = _text(event, "url")
    for link in event.iterfind("links/link"):
        url, title = (link.get("href") or "").strip(), " ".join((link.text or "").split())
        if url and url != own:
            found.append(Link(url, title, (link.get("type") or "").strip().lower() or link_kind(title, url)))
    for attachment in event.iterfind("attachments/attachment"):
        url, title = (attachment.get("href") or "").strip(), " ".join((attachment.text or "").split())
        if url:
            found.append(Link(url, title, (attachment.get("type") or "attachment").strip().lower()))
    return tuple(found)


def _reason(exc: SourceError) -> str:
    # The SourceWarning names file and line itself; keep only the condition.
    text = str(exc)
    where = f"{exc.source}:{exc.line}: " if exc.line is not None else f"{exc.source}: "
    return text.removeprefix(where)


READER = register(FrabXmlReader())
