"""`frab-xml`: the c3voc `schedule.xml` (https://c3voc.de/schedule/schema.xsd) that Giggity,
ConfClerk and EventFahrplan read; what pentabarf, frab and pretalx publish.

    <schedule><version/><conference>…</conference>
      <day index date start end><room name guid><event id guid>
        <date/><start/><duration/><room/><slug/><url/><title/><subtitle/><track/><type/>
        <abstract/><description/><persons><person>…</person></persons><links/></event>

The bytes are those ElementTree writes for the whole tree indented by `ET.indent`, in a fixed
element order, so equal schedules give equal bytes. Characters XML 1.0 cannot carry (most C0
controls) are dropped. The head (<conference>) is serialised by ElementTree; each <day> is a
chunk a static build can keep (chunks.py), written directly with ElementTree's escaping and
indentation (ElementTree took most of a 10,000-session export; a Hypothesis test holds the two
equal).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import datetime
from functools import partial
from xml.sax.saxutils import escape

from feeds.exports.chunks import Chunks, DayChunk, EventTexts
from feeds.exports.frab_layout import FrabDay, FrabEvent, clock, duration_text, layout
from feeds.ical.event import session_url
from feeds.model import Schedule, is_attachment
from feeds.web_links import web_link

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
    return web_link(url)


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

    def _day(self, day: FrabDay, base_url: str | None, texts: EventTexts) -> bytes:
        # The bytes ET.indent and ET.tostring give the day's element tree (see the module doc).
        events = iter(texts(day.events, partial(_events, base_url=base_url)))
        out = [
            f'{_INDENT[1]}<day index="{day.index}" date="{day.date.isoformat()}" '
            f'start="{day.start.isoformat()}" end="{day.end.isoformat()}">'
        ]
        for room in day.rooms:
            out.append(f'{_INDENT[2]}<room name="{_attribute(room.name)}" guid="{_attribute(room.guid)}">')
            out.extend(next(events) for _ in room.events)
            out.append(f"{_INDENT[2]}</room>")
        out.append(f"{_INDENT[1]}</day>")
        return "".join(out).encode("utf-8")


# The line break and indentation ET.indent(root, space="  ") puts before an element at each depth.
_INDENT = tuple("\n" + "  " * depth for depth in range(6))


# What ElementTree escapes in an attribute value besides &, < and > (which `escape` always does).
_ATTRIBUTE = {'"': "&quot;", "\r": "&#13;", "\n": "&#10;", "\t": "&#09;"}


def _text(text: str) -> str:
    """Character data as ElementTree escapes it (after dropping what XML cannot carry)."""
    return escape(_clean(text))


def _attribute(value: str) -> str:
    """An attribute value as ElementTree escapes it."""
    return escape(_clean(value), _ATTRIBUTE)


def _leaf(depth: int, tag: str, text: str | None, attributes: str = "") -> str:
    """An element without children; empty text gives ElementTree's short form."""
    shown = _text(text) if text else ""
    if shown:
        return f"{_INDENT[depth]}<{tag}{attributes}>{shown}</{tag}>"
    return f"{_INDENT[depth]}<{tag}{attributes} />"


# The elements every event has empty (pretalx fills them; the model has no such fields).
_SUBTITLE, _ABSTRACT = _leaf(4, "subtitle", None), _leaf(4, "abstract", None)


def _events(events: Sequence[FrabEvent], base_url: str | None) -> list[str]:
    """Each event's <event> element, with the indentation before it."""
    texts = []
    for event in events:
        out: list[str] = []
        _event(out, event, base_url)
        texts.append("".join(out))
    return texts


def _event(out: list[str], event: FrabEvent, base_url: str | None) -> None:
    session = event.session
    # A guid is a UUID's canonical form and a date, time or duration digits and punctuation:
    # nothing ElementTree escapes, so written as they are.
    out.append(f'{_INDENT[3]}<event id="{event.number}" guid="{event.guid}">')
    out.append(f"{_INDENT[4]}<date>{event.start.isoformat()}</date>")
    out.append(f"{_INDENT[4]}<start>{clock(event.start)}</start>")
    out.append(f"{_INDENT[4]}<duration>{duration_text(event.duration, days=True)}</duration>")
    out.append(_leaf(4, "room", event.room))
    out.append(_leaf(4, "slug", event.slug))
    url = _http(session.url) or _http(session_url(session, base_url))
    if url:
        out.append(_leaf(4, "url", url))
    out.append(_leaf(4, "title", session.title))
    out.append(_leaf(4, "subtitle", session.subtitle) if session.subtitle else _SUBTITLE)
    out.append(_leaf(4, "track", session.track.name if session.track else None))
    out.append(_leaf(4, "type", session.kind))
    out.append(_ABSTRACT)
    out.append(_leaf(4, "description", session.description))
    _holding(out, 4, "persons", [_leaf(5, "person", speaker.name) for speaker in session.speakers])
    if session.language:
        out.append(_leaf(4, "language", session.language))
    if session.do_not_record:
        _holding(out, 4, "recording", [_leaf(5, "license", None), _leaf(5, "optout", "true")])
    link = _http(session.url)
    links = [_leaf(5, "link", session.title, f' href="{_attribute(link)}"')] if link else []
    attachments = []
    for extra in session.links:
        if not _http(extra.url) or extra.url == link:
            continue
        href = f' href="{_attribute(extra.url)}"'
        if is_attachment(extra):
            attachments.append(_leaf(5, "attachment", extra.title, f'{href} type="{_attribute(extra.kind)}"'))
        else:
            kind = f' type="{_attribute(extra.kind)}"' if extra.kind != "link" else ""
            links.append(_leaf(5, "link", extra.title, href + kind))
    _holding(out, 4, "links", links)
    if attachments:
        _holding(out, 4, "attachments", attachments)
    out.append(f"{_INDENT[3]}</event>")


def _holding(out: list[str], depth: int, tag: str, children: list[str]) -> None:
    """An element of `children` (written one level deeper); without any, ElementTree's short form."""
    if not children:
        out.append(f"{_INDENT[depth]}<{tag} />")
        return
    out.append(f"{_INDENT[depth]}<{tag}>")
    out.extend(children)
    out.append(f"{_INDENT[depth]}</{tag}>")
