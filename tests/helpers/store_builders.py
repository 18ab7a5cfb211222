"""Hand-made schedules for store tests (no parser needed)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from feeds.model import Conference, Level, Room, Schedule, Session, Speaker, Track
from tests.helpers.postgres_cluster import fresh_schema

PARIS = ZoneInfo("Europe/Paris")
CONFERENCE = Conference(
    name="PyTorch Conference Europe 2026",
    timezone="Europe/Paris",
    start_date=date(2026, 4, 7),
    end_date=date(2026, 4, 7),
    city="Paris",
)
FIRST = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SECOND = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
THIRD = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 4, 7, hour, minute, tzinfo=PARIS)


def talk(title: str, hour: int, speaker: str, room: str = "Master Stage", minute: int = 0) -> Session:
    return Session(
        id="provisional",
        title=title,
        start=at(hour, minute),
        end=at(hour, minute) + timedelta(minutes=25),
        room=Room(room),
        track=Track("Training Systems"),
        level=Level("Intermediate"),
        description=f"About {title}.",
        speakers=(Speaker(speaker, role="Engineer", affiliation="ACME", bio="Bio."),),
    )


def six_talks() -> tuple[Session, ...]:
    return (
        talk("Scaling Training with FSDP2", 10, "Ada Lovelace"),
        talk("Compilers for Everyone", 11, "Grace Hopper"),
        talk("Quantization in Practice", 12, "Alan Turing", room="Junior Stage"),
        talk("Serving LLMs at Scale", 14, "Barbara Liskov"),
        talk("Graph Breaks Explained", 15, "Edsger Dijkstra", room="Junior Stage"),
        talk("Distributed Checkpointing", 16, "Donald Knuth"),
    )


def schedule(*sessions: Session, conference: Conference = CONFERENCE) -> Schedule:
    return Schedule(conference=conference, sessions=tuple(sessions))


def bare_postgres(url: str) -> str:
    """A fresh public schema with no tables at all (a new database)."""
    return fresh_schema(url, upgrade=False)


def empty_postgres(url: str) -> str:
    """A fresh public schema upgraded to the current revision, with no rows."""
    return fresh_schema(url)
