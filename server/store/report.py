"""The outcome of one ingest, as the `ingest` command prints it and the store records it, and the
summary of one stored conference (what `/api/conferences` and `confcal build` list)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from feeds.model import Conference, Schedule, Session
from server.store.diff import Plan


@dataclass(frozen=True)
class Counts:
    """What the snapshot held: confirmed sessions and the distinct facets they use."""

    sessions: int = 0
    speakers: int = 0
    rooms: int = 0
    tracks: int = 0
    levels: int = 0

    @classmethod
    def of(cls, sessions: Sequence[Session]) -> Counts:
        live = [s for s in sessions if not s.cancelled]
        return cls(
            sessions=len(live),
            speakers=len({sp.slug for s in live for sp in s.speakers}),
            rooms=len({s.room.slug for s in live if s.room}),
            tracks=len({s.track.slug for s in live if s.track}),
            levels=len({s.level.slug for s in live if s.level}),
        )


@dataclass(frozen=True)
class IngestReport:
    """`version` is the schedule version this ingest created. Ids refer to stored sessions;
    `titles` maps every id named in the diff to its title, for printing."""

    version: int
    conference: str
    created: datetime
    added: tuple[str, ...] = ()
    changed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    cancelled: tuple[str, ...] = ()
    restored: tuple[str, ...] = ()
    unchanged: int = 0
    counts: Counts = Counts()
    titles: Mapping[str, str] = field(default_factory=dict)
    # The version this one restored (`confcal rollback`), None for an ingest.
    rollback_of: int | None = None
    # True when the ingest or rollback changed nothing, so no version was recorded: `version` is
    # then the conference's live version, which stays live.
    no_change: bool = False
    # True for the demo `confcal serve` seeds into an empty store, which the first ingest of a
    # real conference may remove (server.commands.ingest); recorded with the version.
    demo_seed: bool = False

    @classmethod
    def of(cls, plan: Plan, schedule: Schedule, *, created: datetime, version: int = 0) -> IngestReport:
        written = {s.id: s.title for s in plan.writes}
        named = (*plan.added, *plan.changed, *plan.cancelled, *plan.restored)
        return cls(
            version=version,
            conference=schedule.conference.slug,
            created=created,
            added=plan.added,
            changed=plan.changed,
            cancelled=plan.cancelled,
            restored=plan.restored,
            unchanged=plan.unchanged,
            counts=Counts.of(schedule.sessions),
            titles={sid: written[sid] for sid in named},
        )

    @property
    def empty(self) -> bool:
        """True when the ingest changed no session (same pages again)."""
        return not (self.added or self.changed or self.cancelled or self.restored)

    def diff_json(self) -> dict[str, Any]:
        return {
            "added": list(self.added),
            "changed": {k: list(v) for k, v in self.changed.items()},
            "cancelled": list(self.cancelled),
            "restored": list(self.restored),
            "unchanged": self.unchanged,
            "titles": dict(self.titles),
            # Only a rollback carries the key, so an ingest's recorded diff is as it always was.
            **({"rollback_of": self.rollback_of} if self.rollback_of is not None else {}),
            **({"demo_seed": True} if self.demo_seed else {}),
        }

    def counts_json(self) -> dict[str, int]:
        c = self.counts
        return {
            "sessions": c.sessions,
            "speakers": c.speakers,
            "rooms": c.rooms,
            "tracks": c.tracks,
            "levels": c.levels,
        }

    @classmethod
    def from_json(
        cls, version: int, conference: str, created: datetime, diff: Mapping[str, Any], counts: Mapping[str, int]
    ) -> IngestReport:
        return cls(
            version=version,
            conference=conference,
            created=created,
            added=tuple(diff["added"]),
            changed={k: tuple(v) for k, v in diff["changed"].items()},
            cancelled=tuple(diff["cancelled"]),
            restored=tuple(diff["restored"]),
            unchanged=int(diff["unchanged"]),
            counts=Counts(**counts),
            titles=dict(diff["titles"]),
            rollback_of=diff.get("rollback_of"),
            demo_seed=bool(diff.get("demo_seed", False)),
        )


def no_change_line(report: IngestReport) -> str:
    """What an ingest or rollback that recorded no version says."""
    return f"no change: version {report.version} stays live"


@dataclass(frozen=True)
class ConferenceSummary:
    """One conference in the store: its details, its live (confirmed) session count, the version
    that first brought it in (the store's order of conferences) and its own latest version (which
    moves only when this conference is ingested again), with when that version was recorded (so
    a version number read from another store, which counts from 1 as well, is told apart)."""

    conference: Conference
    sessions: int
    first_version: int
    version: int
    recorded: datetime | None = None

    @property
    def slug(self) -> str:
        return self.conference.slug
