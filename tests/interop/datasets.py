"""What the seven clients are checked on: every feed kind of every schedule in ../shared/data and the
seed pages, rendered as the server renders them, and generated schedules around every 2026 offset
change of Paris, Sydney, New York, Santiago, Kathmandu and Lord Howe, across midnight and across
midnight with a 06:00 day change.

The expected instants of a generated schedule are the UTC instants it was generated from; those of a
real schedule are the ones confcal read from it (the seed's are checked against its page text by
test_interop_seed.py, and the readers' own tests pin the rest)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta
from functools import cache
from zoneinfo import ZoneInfo

from feeds.catalogue import FeedKind, catalogue
from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.ical import EventCache, render_calendar, uid
from feeds.ical.timezone import transitions
from feeds.model import Conference, Schedule, Session
from feeds.pipeline import load_schedule
from feeds.query import FeedQuery, select
from tests.helpers.paths import SHARED
from tests.helpers.seed_clock import NOW

Instants = tuple[datetime, datetime]
# (file in ../shared/data, --tz when the file states no zone or only UTC)
DATA_FILES = {
    "fosdem-2025": ("fosdem_2025_schedule.xml", None),
    "38c3": ("ccc_38c3_2024_schedule.xml", None),
    "camp-2019": ("frab_camp2019_schedule.json", None),
    "rc3-2020": ("pretalx_rc3_2020_schedule.json", "Europe/Berlin"),
    "democon": ("pretalx_democon_schedule.json", None),
    "graphqlconf-2024": ("sched_graphqlconf2024_session_export_excerpt.json", "America/Los_Angeles"),
    "graphqlconf-2025": ("sched_graphqlconf2025_session_export_excerpt.json", "Europe/Amsterdam"),
    "penguicon-2019": ("penguicon_2019_sched_session_list.csv", "America/Detroit"),
    "jococruise-2020": ("jococruise_2020_sched_export.ics", "America/New_York"),
    "moca-2024": ("moca_2024_messy.ics", None),
}
GENERATED_ZONES = {
    "dst-paris": "Europe/Paris",
    "dst-sydney": "Australia/Sydney",
    "dst-new-york": "America/New_York",
    "dst-santiago": "America/Santiago",
    "dst-kathmandu": "Asia/Kathmandu",
    "dst-lord-howe": "Australia/Lord_Howe",
}
# Feeds per kind beyond "all" and the days: enough to cover each kind, few enough to keep khal's
# one sync (a vdirsyncer pair per feed) short.
PER_KIND = 2


@dataclass(frozen=True)
class Dataset:
    name: str
    schedule: Schedule


def _around_changes(name: str, tzid: str) -> Schedule:
    """Sessions starting every 30 minutes from four hours before to four hours after each 2026
    change of the zone (or, for a zone without one, around a midnight), 45 minutes each."""
    year = (datetime(2026, 1, 1, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC))
    onsets = [t.onset for t in transitions(tzid, *year)] or [datetime(2026, 5, 1, 18, 15, tzinfo=UTC)]
    sessions = [
        Session(f"s{n}-{k + 8}", f"Around change {n}, step {k}", start, start + timedelta(minutes=45))
        for n, onset in enumerate(onsets)
        for k in range(-8, 9)
        for start in [onset + timedelta(minutes=30 * k)]
    ]
    return _schedule(name, tzid, sessions)


def _across_midnight() -> Schedule:
    start = datetime(2026, 4, 7, 21, 30, tzinfo=UTC)  # 23:30 CEST
    sessions = [
        Session("party", "Across midnight", start, start + timedelta(hours=2)),
        Session("late", "After midnight", start + timedelta(hours=1), start + timedelta(hours=1, minutes=30)),
    ]
    return _schedule("across-midnight", "Europe/Paris", sessions)


def _day_change_night() -> Schedule:
    """A 39C3-shaped night: days run to 06:00, so the 00:30 and 05:00 sessions are in the day feed
    of the evening before."""
    start = datetime(2026, 12, 27, 21, 0, tzinfo=UTC)  # 22:00 in Berlin
    sessions = [
        Session(f"n{k}", f"Night {k}", start + timedelta(hours=k), start + timedelta(hours=k, minutes=50))
        for k in range(10)
    ]
    schedule = _schedule("day-change-night", "Europe/Berlin", sessions)
    return Schedule(replace(schedule.conference, day_change=time(6)), schedule.sessions)


def _schedule(name: str, tzid: str, sessions: list[Session]) -> Schedule:
    zone = ZoneInfo(tzid)
    zone_days = [s.start.astimezone(zone).date() for s in sessions]
    conference = Conference(name, tzid, min(zone_days), max(zone_days))
    return Schedule(conference, tuple(sessions))


@cache
def datasets() -> tuple[Dataset, ...]:
    found = [Dataset("seed", load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule)]
    for name, (file, tz) in DATA_FILES.items():
        found.append(Dataset(name, load_schedule([str(SHARED / "data" / file)], tz).schedule))
    found += [Dataset(name, _around_changes(name, tzid)) for name, tzid in GENERATED_ZONES.items()]
    found.append(Dataset("across-midnight", _across_midnight()))
    found.append(Dataset("day-change-night", _day_change_night()))
    return tuple(found)


def feeds(dataset: Dataset) -> Iterator[tuple[str, bytes, dict[str, Instants]]]:
    """(feed name, calendar bytes, {UID: expected instants}) of each feed checked for `dataset`."""
    schedule, events = dataset.schedule, EventCache()
    taken: dict[FeedKind, int] = {}
    for spec in catalogue(schedule):
        if spec.kind not in (FeedKind.ALL, FeedKind.DAY):
            taken[spec.kind] = taken.get(spec.kind, 0) + 1
            if taken[spec.kind] > PER_KIND:
                continue
        sessions = select(schedule, FeedQuery().for_spec(spec), now=NOW)
        data = render_calendar(
            schedule.conference, sessions, title=spec.title, base_url="https://confcal.example", cache=events
        )
        expected = {uid(schedule.conference, s): (s.start, s.end) for s in sessions}
        yield f"{dataset.name}/{spec.kind.value}/{spec.slug}", data, expected
