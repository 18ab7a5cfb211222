"""One VTIMEZONE per IANA zone (RFC 5545 section 3.6.5), the same bytes in every feed.

Clients cache a zone by its TZID (vobject keeps the first definition it sees; Outlook and Apple are
reported to do the same), so a definition may not depend on the feed it is written into. Each one
covers a fixed window (`WINDOW_START` onwards) built from tzdata through zoneinfo:

- the observance in force at the window's start;
- every later change, grouped into yearly series (same offsets, name, month and wall time): a run
  of consecutive years that one rule describes (the last or nth weekday of the month, a weekday on or
  after a day, or a fixed day) is one block with an RRULE (RFC 5545 3.8.5.3), ended by UNTIL when the
  run stops (a day after its last onset, read alike as UTC or local time), open-ended when it is still in force at `WINDOW_END`; a change no rule groups is one
  block with a single onset.

Single onsets alone are not enough: ts-ics reads a DST morning an hour off when the definition has
no RRULE. Each onset is local time in the offset *before* the change (RFC 5545 3.8.2.4: Paris's
spring-forward is 02:00 with TZOFFSETFROM +0100), and RRULE's UNTIL is in UTC, as 3.8.5.3 requires
inside a VTIMEZONE.
"""

from __future__ import annotations

import calendar
import os
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from importlib import resources
from zoneinfo import ZoneInfo

from icalendar import Timezone, TimezoneDaylight, TimezoneStandard, vRecur

WINDOW_START = datetime(1970, 1, 1, tzinfo=UTC)
# Far enough ahead that a rule still in force here is taken as the zone's current rule.
WINDOW_END = datetime(2040, 1, 1, tzinfo=UTC)
_DAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
Rule = tuple[tuple[str, str], ...]  # an RRULE's BY parts, in the order written


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


@dataclass(frozen=True)
class Block:
    """One STANDARD/DAYLIGHT sub-component: its first onset, and the yearly rule repeating it
    (`rule` is an RRULE's BY parts; `until` the UTC instant of its last onset, None while in force)."""

    first: Observance
    rule: Rule = ()
    until: datetime | None = None


def _state(zone: ZoneInfo, instant: datetime) -> tuple[timedelta, str, bool]:
    local = instant.astimezone(zone)
    offset = local.utcoffset() or timedelta(0)
    dst = local.dst() or timedelta(0)
    # zoneinfo names every state of every zone (an abbreviation, or "+08"): the "" only keeps
    # the type a str. A negative DST (Windhoek's and Casablanca's winters in tzdata) is written as
    # STANDARD: readers take a DAYLIGHT observance to be the later offset of the two.
    return offset, local.tzname() or "", dst > timedelta(0)


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
    """Every change of offset, name or DST flag in [start, end] (UTC instants), oldest first.

    zoneinfo has no public list of transitions, so this walks the range a day at a time and
    bisects each day whose state changed."""
    zone = ZoneInfo(tzid)
    found: list[Observance] = []
    # No zone in tzdata changes twice within three days (1970-2040 checked), so a two-day step
    # would find the same changes; a day keeps the margin.
    step = timedelta(days=1)
    cursor = start
    # The state at `cursor`, carried from one step to the next: each day's is computed once.
    state = _state(zone, cursor)
    while cursor < end:
        nxt = min(cursor + step, end)
        following = _state(zone, nxt)
        if state != following:
            onset = _change_between(zone, cursor, nxt)
            before = _state(zone, onset - timedelta(seconds=1))
            after = _state(zone, onset)
            found.append(Observance(onset, before[0], after[0], after[1], after[2]))
            cursor, state = onset, after
        else:
            cursor, state = nxt, following
    return found


def _rules(obs: Observance) -> set[Rule]:
    """Every yearly rule (RRULE BY parts) that puts an onset on this one's local date."""
    local = obs.local_onset
    month, day, weekday = local.month, local.day, _DAYS[local.weekday()]
    length = calendar.monthrange(local.year, month)[1]
    by_month = ("BYMONTH", str(month))
    found: set[Rule] = {(by_month, ("BYMONTHDAY", str(day)))}
    if day <= 28:
        found.add((by_month, ("BYDAY", f"{(day - 1) // 7 + 1}{weekday}")))
    if day + 7 > length:
        found.add((by_month, ("BYDAY", f"-1{weekday}")))
    for low in range(max(1, day - 6), min(day, length - 6) + 1):
        days = ",".join(str(d) for d in range(low, low + 7))
        found.add((by_month, ("BYMONTHDAY", days), ("BYDAY", weekday)))
    return found


def _preferred(rules: set[Rule]) -> Rule:
    """The simplest rule among those that fit: last/nth weekday, then a fixed day, then a range."""

    def cost(rule: Rule) -> tuple[int, str]:
        parts = dict(rule)
        if "BYMONTHDAY" not in parts:
            return (0 if parts["BYDAY"].startswith("-1") else 1, str(rule))
        return (2 if "BYDAY" not in parts else 3, str(rule))

    return min(rules, key=cost)


def _series_key(obs: Observance) -> tuple[timedelta, timedelta, str, bool, int, object]:
    local = obs.local_onset
    return obs.offset_from, obs.offset_to, obs.name, obs.daylight, local.month, local.time()


def _runs(series: list[Observance]) -> Iterator[Block]:
    """The blocks of one series: consecutive years one rule describes make one RRULE block."""
    run: list[Observance] = []
    rules: set[Rule] = set()
    for obs in [*series, None]:
        if obs is not None and run and obs.onset.year == run[-1].onset.year + 1 and rules & _rules(obs):
            run.append(obs)
            rules &= _rules(obs)
            continue
        if run:
            in_force = run[-1].onset.year == WINDOW_END.year - 1
            if len(run) == 1 and not in_force:
                yield Block(run[0])
            else:
                yield Block(run[0], _preferred(rules), None if in_force else run[-1].onset)
        if obs is not None:
            run, rules = [obs], _rules(obs)


@lru_cache(maxsize=64)
def blocks(tzid: str) -> tuple[Block, ...]:
    """The zone's sub-components over the window, in the order of their first onsets."""
    zone = ZoneInfo(tzid)
    changes = transitions(tzid, WINDOW_START, WINDOW_END)
    offset, name, daylight = _state(zone, WINDOW_START)
    # The state in force at the window's start, from the start (its real onset is older).
    found = [Block(Observance(WINDOW_START - offset, offset, offset, name, daylight))]
    by_series: dict[object, list[Observance]] = {}
    for obs in changes:
        by_series.setdefault(_series_key(obs), []).append(obs)
    for series in by_series.values():
        found.extend(_runs(series))
    return tuple(sorted(found, key=lambda b: b.first.onset))


@lru_cache(maxsize=64)
def vtimezone(tzid: str) -> Timezone:
    """The zone's one VTIMEZONE. Cached: the result is shared, so callers must not modify it
    (serialize it with `to_ical()`)."""
    component = Timezone()
    component.add("tzid", tzid)
    for block in blocks(tzid):
        obs = block.first
        sub = TimezoneDaylight() if obs.daylight else TimezoneStandard()
        sub.add("dtstart", obs.local_onset)
        if block.rule:
            recur = vRecur(FREQ="YEARLY")
            for part, value in block.rule:
                recur[part] = [v for v in value.split(",")]
            if block.until is not None:
                # A day past the last onset: some readers (dateutil among them) compare UNTIL with
                # the local onset, others with the UTC one; both include the last and no more.
                recur["UNTIL"] = block.until + timedelta(days=1)
            sub.add("rrule", recur)
        sub.add("tzoffsetfrom", obs.offset_from)
        sub.add("tzoffsetto", obs.offset_to)
        if obs.name:
            sub.add("tzname", obs.name)
        component.add_component(sub)
    return component


@lru_cache(maxsize=64)
def vtimezone_bytes(tzid: str) -> bytes:
    """`vtimezone(tzid)` serialized (CRLF, folded): as `known` was told, if it was."""
    given = _KNOWN.get(tzid)
    if given is not None:
        return given
    data: bytes = vtimezone(tzid).to_ical()
    return data


# Zones' `vtimezone_bytes` made by an earlier process from the same tzdata and code (a static
# build keeps them beside its output): walking seventy years of a zone is most of a small build's
# rendering of its changed feeds.
_KNOWN: dict[str, bytes] = {}


def known(tzid: str, data: bytes) -> None:
    """Take `data` as `vtimezone_bytes(tzid)` from now on: the caller made sure that it was made
    by this module's code from `zone_source(tzid)`'s data."""
    _KNOWN[tzid] = data


def zone_source(tzid: str) -> bytes | None:
    """The TZif data zoneinfo reads for `tzid`, the input of its VTIMEZONE besides this module:
    the first file of `zoneinfo.TZPATH` holding it, else the tzdata package's (zoneinfo's own
    order); None when neither has it."""
    if tzid != os.path.normpath(tzid) or os.path.isabs(tzid) or tzid.startswith(".."):
        return None
    for root in zoneinfo.TZPATH:
        path = os.path.join(root, tzid)
        if os.path.isfile(path):
            with open(path, "rb") as found:
                return found.read()
    package, _, name = f"tzdata.zoneinfo/{tzid}".rpartition("/")
    try:
        return resources.files(package.replace("/", ".")).joinpath(name).read_bytes()
    except (ImportError, OSError):
        return None
