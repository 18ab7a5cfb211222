"""The seed schedule, then the same with one session moved, one removed, one retitled.

Revisions are bumped here by hand the way the store does it on ingest; this checks the
rendering side: only the three changed VEVENTs change, and feeds without them keep their bytes.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from icalendar import Calendar

from feeds.catalogue import catalogue, partition
from feeds.demo import DEMO_DIR, DEMO_TZ
from feeds.ical import EventCache, render_calendar
from feeds.model import Schedule, Session, Status
from feeds.pipeline import load_schedule
from tests.helpers.vevents import sequence

NOW = datetime(2026, 4, 1, tzinfo=UTC)
CHANGED_AT = datetime(2026, 4, 2, 8, 0, tzinfo=UTC)
UID_LINE = re.compile(rb"\r\nUID:(.*?)\r\n")  # our UIDs are short: never folded


def _feeds(schedule: Schedule, cache: EventCache | None) -> dict[str, bytes]:
    groups = partition(schedule, now=NOW)
    return {
        f"{spec.kind.value}/{spec.slug}": render_calendar(
            schedule.conference,
            groups[spec.kind, spec.slug],
            title=spec.title,
            cache=cache,
        )
        for spec in catalogue(schedule)
    }


def _vevents(data: bytes) -> dict[str, bytes]:
    blocks = re.findall(rb"BEGIN:VEVENT\r\n.*?END:VEVENT\r\n", data, re.DOTALL)
    return {UID_LINE.findall(block)[0].decode(): block for block in blocks}


def _bump(session: Session, **changes: Any) -> Session:
    return replace(session, revision=session.revision + 1, modified=CHANGED_AT, **changes)


def test_change_touches_only_the_three_sessions() -> None:
    # Arrange
    before = load_schedule([str(DEMO_DIR)], DEMO_TZ).schedule
    by_title = sorted(before.sessions, key=lambda s: s.title)
    moved, removed, retitled = by_title[0], by_title[1], by_title[2]
    changes = {
        moved.id: _bump(
            moved,
            start=moved.start + timedelta(hours=1),
            end=moved.end + timedelta(hours=1),
        ),
        removed.id: _bump(removed, status=Status.CANCELLED),
        retitled.id: _bump(retitled, title=retitled.title + " (updated)"),
    }
    after = replace(before, sessions=tuple(changes.get(s.id, s) for s in before.sessions))
    cache = EventCache()

    # Act
    old_feeds, new_feeds = _feeds(before, cache), _feeds(after, cache)

    # Assert: same UIDs; SEQUENCE up by one and bytes changed for exactly the three.
    old_events, new_events = _vevents(old_feeds["all/"]), _vevents(new_feeds["all/"])
    assert sorted(old_events) == sorted(new_events)
    changed = {uid for uid in old_events if old_events[uid] != new_events[uid]}
    assert changed == {f"{sid}@{before.conference.slug}.confcal" for sid in changes}
    events = {str(e["UID"]): e for e in Calendar.from_ical(new_feeds["all/"]).walk("VEVENT")}
    old_seq = {str(e["UID"]): sequence(e) for e in Calendar.from_ical(old_feeds["all/"]).walk("VEVENT")}
    assert {uid.split("@")[0]: sequence(events[uid]) - old_seq[uid] for uid in events} == {
        uid.split("@")[0]: 1 if uid in changed else 0 for uid in old_seq
    }
    assert str(events[f"{removed.id}@{before.conference.slug}.confcal"]["STATUS"]) == "CANCELLED"
    # Feeds that contain none of the three are byte-identical (so they keep their ETag).
    untouched = [name for name, data in old_feeds.items() if not changed & set(_vevents(data))]
    assert len(untouched) > 10
    assert [name for name in untouched if old_feeds[name] != new_feeds[name]] == []
    # Cached or not, the bytes are the same.
    assert _feeds(after, None) == new_feeds
