"""From the schedule to DesiredEvents: the same UID and bytes as the feeds (feeds.ical), so a
person who also downloaded or subscribed to a session never sees it twice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from feeds.ical import EventCache, render_session, uid
from feeds.model import Schedule, Session
from server.caldav.errors import UnknownSession
from server.caldav.plan import DesiredEvent


def select_sessions(schedule: Schedule, ids: Sequence[str]) -> list[Session]:
    """The sessions named by `ids`, in schedule order; an unknown ID is an error, not a skip:
    a run states the full set, so a typo would otherwise delete an event."""
    known = {s.id for s in schedule.sessions}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise UnknownSession(f"no session {', '.join(map(repr, unknown))} in {schedule.conference.name}")
    wanted = set(ids)
    return [s for s in schedule.sessions if s.id in wanted]


def desired_events(
    schedule: Schedule,
    sessions: Iterable[Session],
    *,
    cache: EventCache | None = None,
    base_url: str | None = None,
) -> list[DesiredEvent]:
    """Cancelled sessions are simply not desired, so their pushed events get deleted.
    No METHOD: RFC 4791 section 4.1 forbids it in a stored calendar object resource.
    VEVENTs come from `cache` (the feeds' cache shares them: rendered once per revision)."""
    return [
        DesiredEvent(
            uid=uid(schedule.conference, s),
            revision=s.revision,
            ics=render_session(schedule.conference, s, method=None, cache=cache, base_url=base_url),
        )
        for s in sessions
        if not s.cancelled
    ]
