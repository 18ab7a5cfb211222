"""`ics`: the whole conference as one iCalendar file, byte for byte the all-sessions feed
(`/feeds/all.ics`): the same sessions (recently cancelled ones as STATUS:CANCELLED within the grace
period, decided by `now`), the same title, the same VEVENT bytes (feeds.ical)."""

from __future__ import annotations

from datetime import datetime

from feeds.catalogue import FeedKind, catalogue, partition
from feeds.ical import render_calendar
from feeds.model import Schedule


class IcsExporter:
    name = "ics"
    extension = "ics"
    media_type = "text/calendar; charset=utf-8"

    def render(self, schedule: Schedule, *, now: datetime, base_url: str | None = None) -> bytes:
        spec = next(s for s in catalogue(schedule) if s.kind is FeedKind.ALL)
        sessions = partition(schedule, now=now)[(FeedKind.ALL, "")]
        return render_calendar(schedule.conference, sessions, title=spec.title, base_url=base_url)
