"""Small hand-made schedules for export edge cases."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from feeds.model import Conference, Room, Schedule, Session, Speaker, Status, Track

T0 = datetime(2025, 2, 1, 9, 0, tzinfo=UTC)


def edge_schedule(zone: str = "Europe/Brussels") -> Schedule:
    conference = Conference("Edge Con", zone, date(2025, 2, 1), date(2025, 2, 2), slug="ec")
    return Schedule(
        conference,
        (
            Session(
                "a1",
                "Opening & <welcome>",
                T0,
                T0 + timedelta(minutes=30),
                room=Room("Hall A"),
                track=Track("Main"),
                speakers=(Speaker("Ada Lovelace", bio="Analyst"),),
                url="https://example.org/a1",
                modified=T0,
            ),
            Session(
                "b2",
                "Hackathon\x0b (bell \x07)",
                T0 + timedelta(hours=1),
                T0 + timedelta(hours=27),
                kind="workshop",
                description="All night.\nBring food.",
            ),
            Session(
                "c3",
                "Withdrawn",
                T0,
                T0 + timedelta(hours=1),
                room=Room("Hall A"),
                status=Status.CANCELLED,
                modified=T0,
            ),
            Session(
                "d4",
                "Night owls",
                datetime(2025, 2, 2, 1, 30, tzinfo=UTC),
                datetime(2025, 2, 2, 2, 0, tzinfo=UTC),
                room=Room("Bar"),
            ),
        ),
    )
