"""`json`: confcal's own neutral JSON, every field of the schedule model and nothing of any other
format's shape, for scripts and for moving a schedule between confcal servers.

    {"format": "confcal-schedule", "version": 1,
     "conference": {"slug", "name", "timezone", "start", "end", "venue", "city", "url"},
     "sessions": [{"id", "uid", "title", "kind", "start", "end", "status", …}]}

Times are ISO 8601 in UTC ("Z"), the one form that needs no zone to read. Cancelled sessions are
included with their status: this is the data, not a feed. Sorted, fixed key order, equal bytes.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

from feeds import compact_json
from feeds.ical import uid
from feeds.model import Named, Schedule, Session
from feeds.slug import fold
from feeds.web_links import web_link

FORMAT_VERSION = 1


def _instant(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _name(value: Named | None) -> str | None:
    return value.name if value else None


def session_entry(schedule: Schedule, session: Session) -> dict[str, Any]:
    return {
        "id": session.id,
        "uid": uid(schedule.conference, session),
        "source_id": session.source_id,
        "title": session.title,
        "kind": session.kind,
        "start": _instant(session.start),
        "end": _instant(session.end),
        "room": _name(session.room),
        "track": _name(session.track),
        "level": _name(session.level),
        "description": session.description,
        "speakers": [dataclasses.asdict(s) for s in session.speakers],
        "url": web_link(session.url),
        "slides": session.slides,
        "status": session.status.value,
        "revision": session.revision,
        "modified": _instant(session.modified),
    }


class NeutralJsonExporter:
    name = "json"
    extension = "json"
    media_type = "application/json"

    def render(self, schedule: Schedule, *, now: datetime, base_url: str | None = None) -> bytes:
        conference = schedule.conference
        ordered = sorted(schedule.sessions, key=lambda s: (s.start, s.end, fold(s.title), s.id))
        document = {
            "format": "confcal-schedule",
            "version": FORMAT_VERSION,
            "conference": {
                "slug": conference.slug,
                "name": conference.name,
                "timezone": conference.timezone,
                "start": conference.start_date.isoformat(),
                "end": conference.end_date.isoformat(),
                "venue": conference.venue,
                "city": conference.city,
                "url": web_link(conference.source_url),
            },
            "sessions": [session_entry(schedule, s) for s in ordered],
        }
        return compact_json.dumps(document).encode("utf-8")
