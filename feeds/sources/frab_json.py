"""Reader for frab / c3voc / pretalx `schedule.json`.

    {"schedule": {"version": "…", "conference": {"title": "…", "time_zone_name": "Europe/Berlin",
      "days": [{"date": "2019-08-21", "day_start": "2019-08-21T09:00:00+02:00",
                "rooms": {"Curie": [{"guid": "…", "code": "…", "date": "2019-08-21T11:00:00+02:00",
                                     "start": "11:00", "duration": "00:30", "title": "…", …}]}}]}}}

The event's `date` (with its offset) is the exact start and wins over `time_zone_name` when the two
disagree (pretalx's democon export says UTC while every date is +01:00). The source id is the
`guid` (frab, pretalx), else pretalx's `code`, else the numeric `id`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from datetime import date, datetime, time
from typing import Any

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
    raise_unreadable,
    stated_zone,
)
from feeds.sources.records import Person, SessionRecord, SourceBatch, SourceWarning
from feeds.web_links import web_link

# Recognised from the head of the text: an object whose "schedule" object names a "conference"
# (the $schema, version and base_url keys come first in frab's and pretalx's output).
_HEAD = 4096
_SCHEDULE_KEY = re.compile(r'"schedule"\s*:\s*\{')
# c3voc's JSON Schema of this very format names the same keys; it is not a schedule.
_JSON_SCHEMA = re.compile(r'"\$schema"\s*:\s*"https?://json-schema\.org/')


def _str(value: Any) -> str | None:
    """A JSON value as stripped text; numbers become text (ids), everything else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, str)):
        text = str(value).strip()
        return text or None
    return None


def load_json(text: str, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"is not valid JSON: {exc.msg} (column {exc.colno})", source=source, line=exc.lineno
        ) from None
    except RecursionError:
        raise SourceError("is not a schedule: JSON nested too deeply", source=source) from None


class FrabJsonReader:
    name = "frab-json"
    label = "frab/c3voc/pretalx schedule.json"

    def recognises(self, document: Document) -> bool:
        head = document.text[:_HEAD]
        return (
            head.lstrip().startswith("{")
            and _SCHEDULE_KEY.search(head) is not None
            and '"conference"' in head
            and _JSON_SCHEMA.search(head) is None
        )

    def read(self, documents: Sequence[Document], tz: str | None) -> SourceBatch:
        return joined_batches(self.name, [self._read_one(doc) for doc in documents])

    def _read_one(self, doc: Document) -> SourceBatch:
        data = load_json(doc.text, doc.name)
        schedule = data.get("schedule") if isinstance(data, dict) else None
        conference = schedule.get("conference") if isinstance(schedule, dict) else None
        if not isinstance(conference, dict):
            raise NotASchedule("has no schedule.conference object", source=doc.name)
        days = conference.get("days")
        if not isinstance(days, list):
            raise NotASchedule("schedule.conference.days is not a list", source=doc.name)
        found: list[tuple[str, str, dict[str, Any], datetime]] = []
        defects: list[SourceWarning] = []
        for d, day in enumerate(days):
            rooms = day.get("rooms") if isinstance(day, dict) else None
            if not isinstance(rooms, dict):
                defects.append(SourceWarning(doc.name, None, f"days[{d}].rooms is not an object"))
                continue
            for room, events in rooms.items():
                for e, event in enumerate(events if isinstance(events, list) else [None]):
                    where = f"days[{d}].rooms[{json.dumps(room, ensure_ascii=False)}][{e}]"
                    try:
                        if not isinstance(event, dict):
                            raise SourceError("is not an event object")
                        start = event_start(
                            _str(event.get("date")),
                            _day(day, doc.name),
                            _str(event.get("start")),
                            _day_change(day),
                            source=doc.name,
                            line=None,
                        )
                    except SourceError as exc:
                        defects.append(SourceWarning(doc.name, None, f"{where}: {_reason(exc)}"))
                        continue
                    found.append((where, str(room), event, start))
        if not found and not defects:
            raise NotASchedule("holds no event in any day's rooms", source=doc.name)
        zone, clash = stated_zone(_str(conference.get("time_zone_name")), [s for *_, s in found], source=doc.name)
        warnings = [SourceWarning(doc.name, None, clash)] if clash else []
        sessions: list[SessionRecord] = []
        for where, room, event, start in found:
            try:
                sessions.append(_record(doc.name, room, event, start, zone))
            except SourceError as exc:
                defects.append(SourceWarning(doc.name, None, f"{where}: {_reason(exc)}"))
        if not sessions:
            raise_unreadable(defects)
        return SourceBatch(
            format=self.name,
            sessions=tuple(sessions),
            conference=_str(conference.get("title")),
            zone=zone,
            url=_str(conference.get("url")) or _str(schedule.get("base_url")) or doc.url,  # type: ignore[union-attr]
            warnings=tuple(warnings),
            defects=tuple(defects),
            # The days' own start (pretalx's and frab's day_start) is the conference's day change.
            day_change=_common_day_start(days),
        )


def _day(day: dict[str, Any], source: str) -> date | None:
    text = _str(day.get("date"))
    return parse_day(text, source=source, line=None, field="day date") if text else None


def _common_day_start(days: list[Any]) -> time | None:
    starts = Counter(t for day in days if isinstance(day, dict) and (t := _day_change(day)) is not None)
    return starts.most_common(1)[0][0] if starts else None


def _day_change(day: dict[str, Any]) -> time | None:
    # The JSON has no day_change; a day's own start time plays that part.
    text = _str(day.get("day_start"))
    try:
        return datetime.fromisoformat(text).time() if text else None
    except ValueError:
        return None


def _person(value: Any) -> Person | None:
    if not isinstance(value, dict):
        name = _str(value)
        return Person(name=name) if name and is_name(name) else None
    name = _str(value.get("public_name")) or _str(value.get("name")) or _str(value.get("full_public_name"))
    if not name or not is_name(name):
        return None
    return Person(name=" ".join(name.split()), bio=_str(value.get("biography")))


def _url(event: dict[str, Any]) -> str | None:
    """The event's own url, else its first link's, the first that is an http(s) link; with none,
    the first given, which the merge drops with a warning naming it (feeds.web_links)."""
    links = [
        _str(link.get("url") or link.get("href")) if isinstance(link, dict) else None
        for link in event.get("links") or ()
    ]
    given = [u for u in (_str(event.get("url")), *links) if u]
    return next((u for u in given if web_link(u)), given[0] if given else None)


def _record(source: str, room: str, event: dict[str, Any], start: datetime, zone: str | None) -> SessionRecord:
    title = _str(event.get("title"))
    if not title:
        raise SourceError("event has no title")
    duration = parse_duration(_str(event.get("duration")) or "", source=source, line=None)
    persons = event.get("persons") or ()
    speakers = tuple(p for p in (_person(v) for v in (persons if isinstance(persons, list) else ())) if p)
    attachments = event.get("attachments") or ()
    return SessionRecord(
        source=source,
        line=None,
        title=" ".join(title.split()),
        start=start,
        end=start + duration,
        zone=zone if start.tzinfo is None else None,
        source_id=_str(event.get("guid")) or _str(event.get("code")) or _str(event.get("id")),
        description=join_text(_str(event.get("abstract")), _str(event.get("description"))),
        room=_str(event.get("room")) or room,
        track=_str(event.get("track")),
        kind=_str(event.get("type")),
        speakers=speakers,
        url=_url(event),
        slides=any(isinstance(a, dict) and a.get("type") == "slides" for a in attachments if attachments),
        links=_links(event),
        language=_str(event.get("language")) or None,
        subtitle=_str(event.get("subtitle")) or None,
        do_not_record=event.get("do_not_record") is True,
    )


_OUR_LINK_TYPES = frozenset({"recording", "stream", "chat"})


def _links(event: dict[str, Any]) -> tuple[Link, ...]:
    """The event's `links` and `attachments` ({url, title[, type]}), as written; the merge keeps
    the http(s) ones. The event's own `url` repeated there is its URL, not another link."""
    found = []
    own = _str(event.get("url"))
    for key in ("links", "attachments"):
        items = event.get(key)
        for item in items if isinstance(items, list) else ():
            url = _str(item.get("url")) or _str(item.get("href")) if isinstance(item, dict) else None
            if isinstance(item, dict) and url and url != own:
                title = _str(item.get("title")) or _str(item.get("name")) or ""
                given = (_str(item.get("type")) or "").lower()
                if key == "links":
                    # c3voc's reference types say little of a link ("media", "related"); the title does.
                    kind = given if given in _OUR_LINK_TYPES else link_kind(title, url)
                else:
                    kind = given or "attachment"
                found.append(Link(url, title, kind))
    return tuple(found)


def _reason(exc: SourceError) -> str:
    # Defects name the file themselves and JSON has no useful line: keep only the condition.
    return str(exc).removeprefix(f"{exc.source}: ") if exc.source else str(exc)


READER = register(FrabJsonReader())
