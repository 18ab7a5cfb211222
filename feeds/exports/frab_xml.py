"""`frab-xml`: the c3voc `schedule.xml` (https://c3voc.de/schedule/schema.xsd) that Giggity,
ConfClerk and EventFahrplan read; what pentabarf, frab and pretalx publish.

    <schedule><version/><conference>…</conference>
      <day index date start end><room name guid><event id guid>
        <date/><start/><duration/><room/><slug/><url/><title/><subtitle/><track/><type/>
        <abstract/><description/><persons><person>…</person></persons><links/></event>

Written with ElementTree (escaping is its job) in a fixed element order, so equal schedules give
equal bytes. Characters XML 1.0 cannot carry (most C0 controls) are dropped. Each child of
<schedule> is serialised on its own, indented as `ET.indent` indents the whole tree, so a day's
chunk can be kept by a static build (chunks.py) and the join is what one `ET.tostring` writes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime
from functools import partial

from feeds.exports.chunks import Chunks, DayChunk
from feeds.exports.frab_layout import FrabDay, FrabEvent, clock, duration_text, layout
from feeds.ical.event import session_url
from feeds.model import Schedule

# XML 1.0 section 2.2: Char excludes C0 controls other than tab, LF and CR, surrogates, FFFE/FFFF.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str | None) -> str:
    return _NOT_XML.sub("", text or "")


def _add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    child = ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})
    if text:
        child.text = _clean(text)
    return child


def _http(url: str | None) -> str | None:
    return url if url and url.startswith(("http://", "https://")) else None


# What ET.tostring(..., xml_declaration=True) writes before the root, and the indentation
# ET.indent(root, space="  ") gives a child of the root and the root's end tag.
_DECLARATION = b"<?xml version='1.0' encoding='utf-8'?>\n"
_CHILD = "\n  "


def _child(element: ET.Element) -> bytes:
    """A child of <schedule> as the whole tree's serialisation has it, with the indentation before it."""
    ET.indent(element, space="  ", level=1)
    return (_CHILD + ET.tostring(element, encoding="unicode")).encode("utf-8")


class FrabXmlExporter:
    name = "frab-xml"
    extension = "xml"
    media_type = "application/xml; charset=utf-8"

    def render(self, schedule: Schedule, *, now: datetime, base_url: str | None = None) -> bytes:
        return self.chunks(schedule, now=now, base_url=base_url).join()

    def chunks(self, schedule: Schedule, *, now: datetime, base_url: str | None = None) -> Chunks:
        view = layout(schedule)
        conference = schedule.conference
        root = ET.Element("schedule")  # the head's children; each serialised on its own
        _add(root, "generator", name="confcal")
        _add(root, "version", view.version)
        conf = _add(root, "conference")
        _add(conf, "acronym", view.acronym)
        _add(conf, "title", conference.name)
        _add(conf, "start", view.start.isoformat())
        _add(conf, "end", view.end.isoformat())
        _add(conf, "days", str(len(view.days)))
        _add(conf, "timeslot_duration", "00:05")
        if _http(base_url):
            _add(conf, "base_url", f"{base_url.rstrip('/')}/")  # type: ignore[union-attr]
        if _http(conference.source_url):
            _add(conf, "url", conference.source_url)
        _add(conf, "time_zone_name", conference.timezone)
        for track in view.tracks:
            _add(conf, "track", name=track)
        head = _DECLARATION + b"<schedule>" + b"".join(_child(element) for element in root)
        days = tuple(DayChunk(day, partial(self._day, day, base_url)) for day in view.days)
        return Chunks(head, days, b"\n</schedule>\n")

    def _day(self, day: FrabDay, base_url: str | None) -> bytes:
        day_el = ET.Element(
            "day",
            {
                "index": str(day.index),
                "date": day.date.isoformat(),
                "start": day.start.isoformat(),
                "end": day.end.isoformat(),
            },
        )
        for room in day.rooms:
            room_el = _add(day_el, "room", name=room.name, guid=room.guid)
            for event in room.events:
                self._event(room_el, event, base_url)
        return _child(day_el)

    def _event(self, parent: ET.Element, event: FrabEvent, base_url: str | None) -> None:
        session = event.session
        el = _add(parent, "event", id=str(event.number), guid=event.guid)
        _add(el, "date", event.start.isoformat())
        _add(el, "start", clock(event.start))
        _add(el, "duration", duration_text(event.duration, days=True))
        _add(el, "room", event.room)
        _add(el, "slug", event.slug)
        url = _http(session.url) or _http(session_url(session, base_url))
        if url:
            _add(el, "url", url)
        _add(el, "title", session.title)
        _add(el, "subtitle")
        _add(el, "track", session.track.name if session.track else None)
        _add(el, "type", session.kind)
        _add(el, "abstract")
        _add(el, "description", session.description)
        persons = _add(el, "persons")
        for speaker in session.speakers:
            _add(persons, "person", speaker.name)
        links = _add(el, "links")
        if _http(session.url):
            _add(links, "link", session.title, href=session.url)  # type: ignore[arg-type]
