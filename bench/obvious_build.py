"""The obvious build, as the baseline `confcal build` is measured against (issue 12).

    python bench/obvious_build.py --db STORE OUT_DIR

What anyone would write with the icalendar library: for each feed of confcal's catalogue, one
`Calendar` with its events, `add_missing_timezones()`, `to_ical()`, written to a file. Feeds and
their members come from confcal's own catalogue so both builds write the same feeds; everything
else (rendering, time zones, folding, files) is the library's. No page, QR codes or API documents:
the baseline is generous to itself.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from icalendar import Calendar, Event

from feeds.catalogue import FeedKind, partition
from feeds.model import Schedule, Session
from server.store import Store


def event(schedule: Schedule, session: Session, zone: ZoneInfo) -> Event:
    item = Event()
    item.add("uid", f"{session.id}@{schedule.conference.slug}")
    item.add("dtstamp", session.modified or datetime(2026, 1, 1, tzinfo=UTC))
    item.add("dtstart", session.start.astimezone(zone))
    item.add("dtend", session.end.astimezone(zone))
    item.add("summary", session.title)
    item.add("description", session.description)
    if session.room is not None:
        item.add("location", session.room.name)
    item.add("sequence", session.revision)
    item.add("status", "CANCELLED" if session.cancelled else "CONFIRMED")
    return item


def build(schedule: Schedule, out: Path) -> int:
    zone = ZoneInfo(schedule.conference.timezone)
    written = 0
    for (kind, slug), members in partition(schedule, now=datetime.now(UTC)).items():
        calendar = Calendar()
        calendar.add("prodid", "-//obvious build//EN")
        calendar.add("version", "2.0")
        for session in members:
            calendar.add_component(event(schedule, session, zone))
        calendar.add_missing_timezones()
        name = "all.ics" if kind is FeedKind.ALL else f"{kind.value}/{slug}.ics"
        target = out / "feeds" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(calendar.to_ical())
        written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    with Store.open(args.db) as store:
        schedule = store.live()
    if schedule is None:
        raise SystemExit("the store holds no schedule")
    print(f"{build(schedule, args.out)} feeds written")


if __name__ == "__main__":
    main()
