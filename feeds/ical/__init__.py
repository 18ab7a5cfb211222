"""iCalendar output (RFC 5545, RFC 7986): one VEVENT per session, rendered once per revision,
and calendars assembled from those cached bytes."""

from __future__ import annotations

from feeds.ical.cache import EventCache
from feeds.ical.calendar import PRODID, render_calendar, render_session
from feeds.ical.event import uid

__all__ = ["PRODID", "EventCache", "render_calendar", "render_session", "uid"]
