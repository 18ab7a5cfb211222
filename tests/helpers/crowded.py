"""A generated conference with one speaker per session, as many as a test asks for: a kind (the
speakers) over or at the schedule page's limit of listed feeds (server/pages/subscribe.py), for
the tests of the page that lists such a kind instead (server/pages/feed_index.py) and its build."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from feeds.model import Conference, Room, Schedule, Session, Speaker, Track

CROWDED = Conference("Crowded Conf", "Europe/Brussels", date(2025, 2, 1), date(2025, 2, 2))
SLUG = "crowded-conf"


def crowded(speakers: int) -> Schedule:
    """`speakers` sessions over two days in ten rooms, each by a speaker of their own."""
    rooms = [Room(f"Room {i}") for i in range(10)]
    first = datetime(2025, 2, 1, 8, 0, tzinfo=UTC)
    sessions = []
    for i in range(speakers):
        start = first + timedelta(days=i % 2, minutes=30 * (i // 20))
        sessions.append(
            Session(
                f"c{i:04d}",
                f"Talk {i}",
                start,
                start + timedelta(minutes=25),
                room=rooms[i // 2 % 10],
                track=Track(f"Track {i % 3}"),
                speakers=(Speaker(f"Speaker {i:03d}"),),
            )
        )
    return Schedule(CROWDED, tuple(sessions))
