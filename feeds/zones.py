"""Turn a page's wall-clock time and zone abbreviation into an exact instant.

A page shows local times plus an abbreviation ("11:00 CEST"). The abbreviation is never trusted on its
own: it is checked against the conference's IANA zone at that date, and it decides which of the two
instants a repeated wall time means when clocks go back (02:15 CEST and 02:15 CET on the last Sunday of
October in Paris are an hour apart). A wall time that does not exist (the skipped hour in March) or an
abbreviation the zone never uses at that date is an error, never a silent shift.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from feeds.errors import TimeZoneError

_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$")


def load_zone(name: str) -> ZoneInfo:
    # Keeps path-like names away from the tzdata file lookup rather than trusting ZoneInfo to
    # refuse them (today it does, with the same error).
    if not name or len(name) > 64 or name.startswith(("/", ".")) or ".." in name:
        raise TimeZoneError(f"unknown time zone {name!r}: give an IANA name such as Europe/Paris")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise TimeZoneError(f"unknown time zone {name!r}: give an IANA name such as Europe/Paris") from exc


def fixed_offset(label: str) -> tzinfo | None:
    """The fixed zone a label names by itself ("UTC", "GMT", "+02:00", "UTC+2"), else None."""
    text = label.strip().upper()
    if text in ("UTC", "GMT", "Z"):
        return UTC
    m = _OFFSET.match(text)
    if not m:
        return None
    sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3) or 0)
    if hours > 14 or minutes > 59:
        return None
    delta = timedelta(hours=hours, minutes=minutes)
    return timezone(-delta if sign == "-" else delta)


def _exists(candidate: datetime, zone: ZoneInfo) -> bool:
    # A wall time in the spring-forward gap does not survive a round trip through UTC.
    # Through any zone, the round trip returns the same instant: UTC here is not observable.
    back = candidate.astimezone(UTC).astimezone(zone)
    return back.replace(tzinfo=None) == candidate.replace(tzinfo=None)


def candidates(day: date, wall: time, zone: ZoneInfo) -> list[datetime]:
    """Every distinct instant the wall time names in the zone: none (gap), one, or two (fold)."""
    found: list[datetime] = []
    for fold in (0, 1):
        dt = datetime.combine(day, wall, tzinfo=zone).replace(fold=fold)
        if _exists(dt, zone) and all(dt.utcoffset() != f.utcoffset() for f in found):
            found.append(dt)
    return found


def resolve(day: date, wall: time, abbreviation: str | None, zone: ZoneInfo) -> datetime:
    """The instant a page means by `wall` on `day` with `abbreviation`, in the conference `zone`.

    Raises TimeZoneError when the wall time does not exist there or the abbreviation contradicts it.
    The result is in UTC: Python compares two datetimes of one ZoneInfo by wall time, ignoring
    `fold`, so instants in the repeated hour would sort and compare wrongly if kept local.
    """
    where = f"{day.isoformat()} {wall.strftime('%H:%M')}"
    fixed = fixed_offset(abbreviation) if abbreviation else None
    if fixed is not None:
        # An explicit UTC offset names the instant by itself; show it in the conference zone.
        return datetime.combine(day, wall, tzinfo=fixed).astimezone(UTC)
    options = candidates(day, wall, zone)
    if not options:
        raise TimeZoneError(f"{where} does not exist in {zone.key} (clocks go forward then); fix the time or the zone")
    if not abbreviation:
        return options[0].astimezone(UTC)
    matching = [dt for dt in options if dt.tzname() == abbreviation]
    if matching:
        return matching[0].astimezone(UTC)
    used = " or ".join(sorted({str(dt.tzname()) for dt in options}))
    raise TimeZoneError(f"{where} {abbreviation} contradicts time zone {zone.key}, which shows {used} then; check --tz")


def resolve_wall(wall: datetime, zone: ZoneInfo) -> datetime:
    """The one instant a naive wall time names in `zone`, in UTC. Raises TimeZoneError when it names
    none (clocks go forward) or two (clocks go back): a source that gives no offset or abbreviation
    cannot say which one it means, and guessing would move a session by an hour."""
    options = candidates(wall.date(), wall.time(), zone)
    where = f"{wall:%Y-%m-%d %H:%M}"
    if not options:
        raise TimeZoneError(f"{where} does not exist in {zone.key} (clocks go forward then)")
    if len(options) > 1:
        raise TimeZoneError(f"{where} happens twice in {zone.key} (clocks go back then); the source does not say which")
    return options[0].astimezone(UTC)


def resolve_span(
    day: date, start: time, end: time, abbreviation: str | None, zone: ZoneInfo
) -> tuple[datetime, datetime]:
    """Start and end of a "HH:MM - HH:MM ABBR" span; an end before the start is on the next day.

    The abbreviation belongs to the start. The end is the first instant after the start at which
    the zone's clocks read `end`: across the autumn change "01:30 - 03:15 CEST" ends at 03:15 CET
    (03:15 exists only in CET), and "02:50 - 02:10 CEST" ends at 02:10 CET twenty minutes later.
    An end in the spring-forward gap is an error. A fixed offset ("UTC", "+01:00") holds for both.
    """
    begins = resolve(day, start, abbreviation, zone)
    # (`end <= start` would give the same spans: the search below also looks at `day`.)
    end_day = day + timedelta(days=1) if end < start else day
    if abbreviation and fixed_offset(abbreviation) is not None:
        return begins, resolve(end_day, end, abbreviation, zone)  # a fixed offset ignores `zone`
    resolve(end_day, end, None, zone)  # raises when the end falls in the gap
    # end_day has a candidate at or after the start, so the list is never empty; `day` adds the
    # repeated hour's second reading of an end that is "earlier" only on the wall clock.
    later = [
        dt.astimezone(UTC)
        for d in (day, end_day)
        for dt in candidates(d, end, zone)
        if dt >= begins  # begins is in UTC, so this compares instants, not wall times
    ]
    return begins, min(later)


def zone_for_place(place: str) -> str | None:
    """The IANA zone a header place such as "Paris, France" names, when exactly one zone's city
    part equals one of its comma-separated parts (case and spacing folded); else None."""
    parts = [p.strip().lower().replace(" ", "_") for p in place.split(",") if p.strip()]
    by_city = _zones_by_city()
    for part in parts:
        names = by_city.get(part, ())
        if len(names) == 1:
            return names[0]
    return None


@lru_cache(maxsize=1)
def _zones_by_city() -> dict[str, tuple[str, ...]]:
    # available_timezones() walks the tzdata files; the index cannot change while we run.
    by_city: dict[str, list[str]] = {}
    for name in available_timezones():
        if "/" in name and not name.startswith(("Etc/", "SystemV/", "US/")):
            by_city.setdefault(name.rsplit("/", 1)[1].lower(), []).append(name)
    return {city: tuple(sorted(names)) for city, names in by_city.items()}
