"""Filters on a feed URL and the sessions they select.

Any feed takes `track=`, `room=`, `speaker=`, `level=`, `day=`, `kind=` (repeatable): values of
one parameter widen (OR), different parameters narrow (AND), and a feed's own path is a filter
that query parameters may narrow but never widen. The value `-none` selects sessions without
any value for that parameter (`track=-none`: the sessions in no track); no slug starts with `-`.
`alarm=` is not a filter: it asks for a reminder on every event (feeds.ical.alarm).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from feeds.catalogue import (
    CANCELLED_GRACE,
    FILTER_NAMES,
    LABELS,
    FeedKind,
    FeedSpec,
    catalogue,
    slugs_of,
    visible,
)
from feeds.errors import AlarmError, FilterError
from feeds.ical.alarm import parse_alarm
from feeds.model import Conference, Schedule, Session

NONE = "-none"


@dataclass(frozen=True)
class FeedQuery:
    """Filters of a feed URL; every value is a slug. An empty tuple means "not filtered"."""

    track: tuple[str, ...] = ()
    room: tuple[str, ...] = ()
    speaker: tuple[str, ...] = ()
    level: tuple[str, ...] = ()
    day: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    # (parameter, slug) pairs that must all hold: the feed's own path, which query parameters
    # may narrow but never widen (see `for_spec`).
    required: tuple[tuple[str, str], ...] = field(default=())
    # Minutes before each event's start for a VALARM; None: no reminder (feeds.ical.alarm).
    alarm: int | None = None

    @classmethod
    def from_params(cls, items: Iterable[tuple[str, str]]) -> FeedQuery:
        """From URL query pairs, e.g. [("room", "master-stage"), ("room", "junior-stage")].
        Values keep their first-seen order, without repeats. Raises FilterError on an unknown
        parameter name, so a typo does not silently return the whole conference."""
        values: dict[str, list[str]] = {name: [] for name in FILTER_NAMES}
        alarm: int | None = None
        for name, value in items:
            if name == "alarm":
                minutes = parse_alarm(value)
                if alarm is not None and alarm != minutes:
                    raise AlarmError("alarm given twice with different values")
                alarm = minutes
                continue
            if name not in values:
                raise FilterError(f"unknown filter {name!r}; use one of: {', '.join(FILTER_NAMES)} (or alarm)")
            value = value.strip()
            if value and value not in values[name]:
                values[name].append(value)
        return cls(
            track=tuple(values["track"]),
            room=tuple(values["room"]),
            speaker=tuple(values["speaker"]),
            level=tuple(values["level"]),
            day=tuple(values["day"]),
            kind=tuple(values["kind"]),
            alarm=alarm,
        )

    def for_spec(self, spec: FeedSpec) -> FeedQuery:
        """This query applied within the feed `spec`: /room/master-stage?room=junior-stage
        is empty rather than both rooms."""
        if spec.kind is FeedKind.ALL:
            return self
        return replace(self, required=(*self.required, (spec.kind.value, spec.slug)))

    def matches(self, session: Session, conference: Conference) -> bool:
        """OR within one parameter, AND across parameters and required pairs."""
        for name in FILTER_NAMES:
            wanted: tuple[str, ...] = getattr(self, name)
            if not wanted:
                continue
            have = slugs_of(FeedKind(name), session, conference)
            if not (any(v in wanted for v in have) or (not have and NONE in wanted)):
                return False
        return all(slug in slugs_of(FeedKind(name), session, conference) for name, slug in self.required)


def select(
    schedule: Schedule,
    query: FeedQuery,
    *,
    now: datetime,
    grace: timedelta = CANCELLED_GRACE,
) -> list[Session]:
    """The sessions of a feed, sorted by start then id. `now` is passed in, not read, so the
    result (and the feed's bytes) depend only on the arguments."""
    conference = schedule.conference
    chosen = [s for s in schedule.sessions if visible(s, now, grace) and query.matches(s, conference)]
    return sorted(chosen, key=lambda s: (s.start, s.id))


def feed_title(
    conference: Conference,
    spec_or_query: FeedSpec | FeedQuery,
    *,
    schedule: Schedule | None = None,
) -> str:
    """What the feed is, for NAME and X-WR-CALNAME: "PyTorch Conference Europe 2026 - Room:
    Master Stage". For a query, values are named from `schedule` when given, else by slug;
    several values of one filter read "A or B", several filters are joined by ", "."""
    if isinstance(spec_or_query, FeedSpec):
        return spec_or_query.title
    query = spec_or_query
    known = {(spec.kind.value, spec.slug): spec.name for spec in catalogue(schedule)} if schedule else {}
    groups: dict[str, list[str]] = {name: list(getattr(query, name)) for name in FILTER_NAMES}
    for name, slug in query.required:
        if slug not in groups[name]:
            groups[name].insert(0, slug)
    parts = [
        f"{LABELS[FeedKind(name)]}: "
        + " or ".join("(none)" if slug == NONE else known.get((name, slug), slug) for slug in slugs)
        for name, slugs in groups.items()
        if slugs
    ]
    return " - ".join([conference.name, ", ".join(parts)]) if parts else conference.name
