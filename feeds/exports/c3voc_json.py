"""`c3voc-json`: the c3voc `schedule.json` (https://c3voc.de/schedule/schema.json), the JSON twin of
schedule.xml that frab and pretalx publish and EventFahrplan and Giggity read.

    {"$schema": …, "generator": {"name": "confcal"}, "schedule": {"version": …, "conference": {
      "acronym", "title", "start", "end", "daysCount", "timeslot_duration", "time_zone_name",
      "rooms": [{"name", "guid"}], "tracks": [{"name"}],
      "days": [{"index", "date", "day_start", "day_end", "rooms": {"Room": [event, …]}}]}}}

Keys are written in a fixed order with no whitespace variation, so equal schedules give equal bytes.
"days" is the last key of every object around it, so the document is a head ending in `"days":[`,
one chunk per day (a comma before all but the first) and `]}}}` (chunks.py).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache, partial
from typing import Any

from feeds import compact_json
from feeds.exports.chunks import Chunks, DayChunk, EventTexts
from feeds.exports.frab_layout import FrabDay, FrabEvent, clock, duration_text, layout, room_guid
from feeds.ical.event import session_url
from feeds.model import Link, Schedule, is_attachment
from feeds.web_links import as_uri, web_link

SCHEMA = "https://c3voc.de/schedule/schema.json"
# The document's end after the days' list: "days" closes "conference", "schedule" and the document.
_TAIL = "]}}}"
# The schema's own pattern for time_zone_name; other IANA names (Etc/GMT-1) are left out.
_ZONE_NAME = re.compile(r"^([A-Z][a-z]+/[A-Z][a-z]+)|UTC$")


@lru_cache(maxsize=65_536)
def _person_guid(name: str) -> str:
    # Once per name: a speaker of many sessions is listed in each, and a large schedule names thousands.
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confcal:person:{name}"))


def _person(name: str, bio: str | None) -> dict[str, Any]:
    # pretalx's person shape (name), plus frab's public_name that older apps read.
    person: dict[str, Any] = {"name": name, "public_name": name, "guid": _person_guid(name)}
    if bio:
        person["biography"] = bio
    return person


def _event(event: FrabEvent, base_url: str | None) -> dict[str, Any]:
    session = event.session
    link = web_link(session.url)
    url = link or session_url(session, base_url) or f"urn:uuid:{event.guid}"
    return {
        "guid": event.guid,
        "id": event.number,
        "date": event.start.isoformat(),
        "start": clock(event.start),
        "end": (event.start + event.duration).isoformat(),
        "duration": duration_text(event.duration, days=False),
        "room": event.room,
        "slug": event.slug,
        "url": url,
        "title": session.title,
        "subtitle": session.subtitle or "",
        "track": session.track.name if session.track else None,
        "type": session.kind,
        "language": session.language,
        "abstract": "",
        "description": session.description,
        "persons": [_person(s.name, s.bio) for s in session.speakers],
        "links": ([{"url": link, "title": session.title}] if link else [])
        + [_reference(x) for x in session.links if web_link(x.url) and x.url != link and not is_attachment(x)],
        "attachments": [_reference(x) for x in session.links if web_link(x.url) and x.url != link and is_attachment(x)],
        "do_not_record": session.do_not_record,
    }


# The schema's reference types, and what our link kinds are among them (a reader tells a recording
# from a stream or chat room by its title again, as it did from the source's).
_REFERENCE_TYPES = frozenset({"slides", "paper", "web", "blog", "article", "media", "related", "activitypub"})
_AS_REFERENCE_TYPE = {"recording": "media", "stream": "media", "chat": "related"}


def _reference(link: Link) -> dict[str, str]:
    kind = _AS_REFERENCE_TYPE.get(link.kind, link.kind)
    typed = {"type": kind} if kind in _REFERENCE_TYPES else {}
    return {"url": as_uri(link.url), "title": link.title, **typed}


class C3vocJsonExporter:
    name = "c3voc-json"
    extension = "json"
    media_type = "application/json"

    def render(self, schedule: Schedule, *, now: datetime, base_url: str | None = None) -> bytes:
        return self.chunks(schedule, now=now, base_url=base_url).join()

    def chunks(self, schedule: Schedule, *, now: datetime, base_url: str | None = None) -> Chunks:
        view = layout(schedule)
        conference = schedule.conference
        conf: dict[str, Any] = {
            "acronym": view.acronym,
            "title": conference.name,
            "start": view.start.isoformat(),
            "end": view.end.isoformat(),
            "daysCount": len(view.days),
            "timeslot_duration": "00:05",
        }
        if _ZONE_NAME.match(conference.timezone):
            conf["time_zone_name"] = conference.timezone
        if web_link(conference.source_url):
            conf["url"] = conference.source_url
        conf["rooms"] = [{"name": name, "guid": room_guid(conference, name)} for name in view.rooms]
        conf["tracks"] = [{"name": track} for track in view.tracks]
        conf["days"] = []
        document: dict[str, Any] = {"$schema": SCHEMA, "generator": {"name": "confcal"}}
        inner: dict[str, Any] = {"version": view.version}
        if base_url:
            inner["base_url"] = f"{base_url.rstrip('/')}/"
        inner["conference"] = conf
        document["schedule"] = inner
        empty = compact_json.dumps(document)
        assert empty.endswith("[" + _TAIL), "the days' list is the document's last value"
        head = empty[: -len(_TAIL)].encode("utf-8")
        days = tuple(DayChunk(day, partial(_day, day, base_url)) for day in view.days)
        return Chunks(head, days, _TAIL.encode("utf-8"))


def _day(day: FrabDay, base_url: str | None, texts: EventTexts) -> bytes:
    """One day of the days' list, with the comma before it unless it is the first: the dump of
    the day's object, joined from each event's own dump (JSON nests: a value's dump is the
    same wherever it stands)."""
    events = iter(texts(day.events, partial(_events, base_url=base_url)))
    head = compact_json.dumps(
        {
            "index": day.index,
            "date": day.date.isoformat(),
            "day_start": day.start.isoformat(),
            "day_end": day.end.isoformat(),
        }
    )
    shown = ",".join(
        f"{compact_json.dumps(room.name)}:[{','.join(next(events) for _ in room.events)}]" for room in day.rooms
    )
    return f'{"" if day.index == 1 else ","}{head[:-1]},"rooms":{{{shown}}}}}'.encode()


def _events(events: Sequence[FrabEvent], base_url: str | None) -> list[str]:
    return [compact_json.dumps(_event(event, base_url)) for event in events]
