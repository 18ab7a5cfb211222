"""What an ingest changes: pure comparison of an incoming snapshot with the stored sessions.

Content is what a calendar shows (title, kind, start, end, room, track, level, description,
speakers' name/role/affiliation, slides, url, status). A session's revision - its iCalendar
SEQUENCE (RFC 5545 §3.8.7.4) - starts at 0 when it is first stored, as that section prescribes
for a new component, and goes up by one exactly when its content changes, when it is cancelled,
and when it is restored. Anything else (a speaker's bio, a slug) is refreshed silently: it is not
shown in calendars, so bumping SEQUENCE for it would only make clients re-download for nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from feeds.identity import assign_ids
from feeds.model import Session, Status
from server.errors import IngestRefused

CONTENT_FIELDS = (
    "title",
    "kind",
    "start",
    "end",
    "room",
    "track",
    "level",
    "description",
    "speakers",
    "slides",
    "links",
    "language",
    "subtitle",
    "do_not_record",
    "url",
    "status",
)

# More than this share of the live (confirmed) sessions vanishing looks like a broken scrape.
MAX_CANCEL_SHARE = 1 / 3


def content(session: Session) -> dict[str, object]:
    return {
        "title": session.title,
        "kind": session.kind,
        # Aware datetimes compare by instant in any zone, so UTC here is not observable through
        # equality; it keeps the values uniform.
        "start": session.start.astimezone(UTC),
        "end": session.end.astimezone(UTC),
        "room": session.room.name if session.room else None,
        "track": session.track.name if session.track else None,
        "level": session.level.name if session.level else None,
        "description": session.description,
        "speakers": tuple((s.name, s.role, s.affiliation) for s in session.speakers),
        "slides": session.slides,
        "links": session.links,
        "language": session.language,
        "subtitle": session.subtitle,
        "do_not_record": session.do_not_record,
        "url": session.url,
        "status": session.status,
    }


def changed_fields(old: Session, new: Session) -> tuple[str, ...]:
    before, after = content(old), content(new)
    return tuple(name for name in CONTENT_FIELDS if before[name] != after[name])


@dataclass(frozen=True)
class Plan:
    """The rows an ingest writes (`writes`, final state) and the diff it reports."""

    writes: tuple[Session, ...] = ()
    added: tuple[str, ...] = ()
    changed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    cancelled: tuple[str, ...] = ()
    restored: tuple[str, ...] = ()
    unchanged: int = 0
    live_before: int = 0


def plan_ingest(incoming: Sequence[Session], previous: Sequence[Session], now: datetime) -> Plan:
    """Match `incoming` (a complete snapshot) against every stored session of the conference."""
    return plan_snapshot(assign_ids(incoming, previous), previous, now)


def plan_snapshot(identified: Sequence[Session], previous: Sequence[Session], now: datetime) -> Plan:
    """The plan for a snapshot whose sessions already carry their ids (an ingest after
    feeds.identity, or a rollback to a stored version's sessions)."""
    old_by_id = {s.id: s for s in previous}
    writes: list[Session] = []
    added: list[str] = []
    changed: dict[str, tuple[str, ...]] = {}
    cancelled: list[str] = []
    restored: list[str] = []
    unchanged = 0
    for new in identified:
        old = old_by_id.pop(new.id, None)
        if old is None:
            writes.append(dataclasses.replace(new, revision=0, modified=now))
            added.append(new.id)
            continue
        fields = changed_fields(old, new)
        if not fields:
            unchanged += 1
            kept = dataclasses.replace(new, revision=old.revision, modified=old.modified)
            if kept != old:  # e.g. a bio was edited: store it, but it is not a revision
                writes.append(kept)
            continue
        writes.append(dataclasses.replace(new, revision=old.revision + 1, modified=now))
        if old.cancelled and not new.cancelled:
            restored.append(new.id)
        elif new.cancelled and not old.cancelled:
            cancelled.append(new.id)
        else:
            changed[new.id] = fields
    # Whatever is left was not in the snapshot: a removal is kept as a cancellation.
    for old in old_by_id.values():
        if not old.cancelled:
            writes.append(dataclasses.replace(old, status=Status.CANCELLED, revision=old.revision + 1, modified=now))
            cancelled.append(old.id)
    return Plan(
        writes=tuple(writes),
        added=tuple(added),
        changed=changed,
        cancelled=tuple(cancelled),
        restored=tuple(restored),
        unchanged=unchanged,
        live_before=sum(1 for s in previous if not s.cancelled),
    )


def check_not_destructive(plan: Plan, *, force: bool) -> None:
    """Refuse a plan that cancels more than a third of the live sessions, unless forced."""
    if force or len(plan.cancelled) <= plan.live_before * MAX_CANCEL_SHARE:
        return
    raise IngestRefused(
        f"ingest refused: it would cancel {len(plan.cancelled)} of {plan.live_before} live sessions "
        f"(more than a third), which looks like a broken source; use --force if it is real"
    )
