"""VTIMEZONE components trimmed to the dates a feed covers (RFC 5545 section 3.6.5).

The transitions are found from the IANA data via zoneinfo and written as one observance per
change, without RRULEs (the form least open to interpretation), starting with the observance already in
force on the first date and the one before it (so DST zones carry both STANDARD and DAYLIGHT). Each onset is written as RFC 5545 3.6.5 / 3.8.2.4 define it: local time
in the offset *before* the change (Paris spring-forward: 02:00 with TZOFFSETFROM +0100).
icalendar's own `Timezone.from_tzid` writes 03:00 there and prefixes a stub observance at the
range's first date; because no real wall time falls inside the skipped hour, parsers read both
alike (tests/interop checks ours with four of them), but the RFC form costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from icalendar import Timezone, TimezoneDaylight, TimezoneStandard

# How far back to look for the change that put the first date's offset in force. Beyond it the
# zone is taken as having always had that offset (true enough for zones without DST).
_LOOKBACK = timedelta(days=800)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Observance:
    """One STANDARD or DAYLIGHT onset: `onset` is the UTC instant of the change."""

    onset: datetime
    offset_from: timedelta
    offset_to: timedelta
    name: str
    daylight: bool

    @property
    def local_onset(self) -> datetime:
        """The onset as naive local time in the offset before the change (RFC 5545 3.8.2.4)."""
        return (self.onset + self.offset_from).replace(tzinfo=None)


def _state(zone: ZoneInfo, instant: datetime) -> tuple[timedelta, str, bool]:
    local = instant.astimezone(zone)
    offset = local.utcoffset() or timedelta(0)
    dst = local.dst() or timedelta(0)
    # zoneinfo names every state of every zone (an abbreviation, or "+08"): the "" only keeps
    # the type a str.
    return offset, local.tzname() or "", bool(dst)


def _change_between(zone: ZoneInfo, low: datetime, high: datetime) -> datetime:
    """The first instant in (low, high] whose state differs from low's, to the second.

    Bisection: any split point would find the same second, halving finds it fastest.
    `transitions` passes whole-second instants, so `mid <= low` never holds there: the guard
    only keeps the loop finite for sub-second bounds."""
    before = _state(zone, low)
    while high - low > timedelta(seconds=1):
        mid = low + (high - low) / 2
        mid = mid.replace(microsecond=0)
        if mid <= low:
            mid = low + timedelta(seconds=1)
        if _state(zone, mid) == before:
            low = mid
        else:
            high = mid
    return high


def transitions(tzid: str, start: datetime, end: datetime) -> list[Observance]:
    """Every change of offset, name or DST flag in [start, end] (UTC instants), oldest first."""
    zone = ZoneInfo(tzid)
    found: list[Observance] = []
    # No zone in tzdata changes twice within three days (1990-2035 checked), so a two-day step
    # would find the same changes; a day keeps the margin.
    step = timedelta(days=1)
    cursor = start
    while cursor < end:
        nxt = min(cursor + step, end)
        if _state(zone, cursor) != _state(zone, nxt):
            onset = _change_between(zone, cursor, nxt)
            before = _state(zone, onset - timedelta(seconds=1))
            after = _state(zone, onset)
            found.append(Observance(onset, before[0], after[0], after[1], after[2]))
            cursor = onset
        else:
            cursor = nxt
    return found


def observances(tzid: str, first: date, last: date) -> list[Observance]:
    """The observance in force on `first` and the one before it (their real onsets if within the
    look-back), and every change up to the end of `last`; local days are widened by one on each
    side for safety."""
    zone = ZoneInfo(tzid)
    start = datetime.combine(first - timedelta(days=1), time(), zone).astimezone(UTC)
    # `end` only bounds the search, compared as an instant, so its tzinfo changes nothing.
    # `start`'s does: the onsets found carry it.
    end = datetime.combine(last + timedelta(days=2), time(), zone).astimezone(UTC)
    earlier = transitions(tzid, start - _LOOKBACK, start)
    if not earlier:
        # No zone without a change in the look-back is in daylight time: this is its STANDARD.
        offset, name, daylight = _state(zone, start)
        return [Observance(_EPOCH - offset, offset, offset, name, daylight), *transitions(tzid, start, end)]
    # The change before the one in force too, so a DST zone always shows both a STANDARD and a
    # DAYLIGHT observance: some clients (Outlook among them) mis-read a zone given only one.
    return [*earlier[-2:], *transitions(tzid, start, end)]


@lru_cache(maxsize=256)
def vtimezone(tzid: str, first: date, last: date) -> Timezone:
    """A VTIMEZONE for `tzid` valid for local dates first..last inclusive. Cached: the result
    is shared, so callers must not modify it (serialize it with `to_ical()`)."""
    component = Timezone()
    component.add("tzid", tzid)
    for obs in observances(tzid, first, last):
        sub = TimezoneDaylight() if obs.daylight else TimezoneStandard()
        sub.add("dtstart", obs.local_onset)
        sub.add("tzoffsetfrom", obs.offset_from)
        sub.add("tzoffsetto", obs.offset_to)
        if obs.name:
            sub.add("tzname", obs.name)
        component.add_component(sub)
    return component


@lru_cache(maxsize=256)
def vtimezone_bytes(tzid: str, first: date, last: date) -> bytes:
    """`vtimezone(...)` serialized (CRLF, folded)."""
    data: bytes = vtimezone(tzid, first, last).to_ical()
    return data
