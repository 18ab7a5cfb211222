"""When a pick set expires: a pure rule of dates, so it is tested without a clock or database.

A pick set is personal data kept for one conference. It is kept while its conference runs and
for KEEP_AFTER_END after it ended; after that it goes once nobody has read or changed it for
KEEP_AFTER_END. "Read" means fetched through the server: the personal feed (a subscribed
calendar app polls it), its QR code or the picks API. So a set still subscribed to stays; one
abandoned goes at the earliest KEEP_AFTER_END after the conference's last day.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

KEEP_AFTER_END = timedelta(days=90)


def conference_over(end_date: date, zone: str, day_change: time = time()) -> datetime:
    """The instant the conference's last day ends: its day change (feeds.model.Conference) on
    the calendar day after it, in its own zone; midnight for most, but 06:00 where the last
    night's sessions belong to the last day."""
    over = datetime.combine(end_date + timedelta(days=1), day_change, ZoneInfo(zone))
    return over.astimezone(UTC)


def expires_at(last_touch: datetime, over: datetime, keep: timedelta = KEEP_AFTER_END) -> datetime:
    """When a set last read or changed at `last_touch` expires, its conference over at `over`."""
    return max(last_touch, over) + keep


def purge_cutoff(over: datetime, now: datetime, keep: timedelta = KEEP_AFTER_END) -> datetime | None:
    """Sets of a conference over at `over` whose last read and change are both at or before the
    returned instant have expired by `now` (the same rule as `expires_at`); None while the
    conference's sets are all still kept."""
    if now < over + keep:
        return None
    return now - keep
