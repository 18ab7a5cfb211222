"""What one address is sent when its picks or the schedule changed: pure, from the live
schedule, the picks and what was sent before.

- a picked, live session never sent, or last sent as cancelled: REQUEST;
- a picked, live session sent at a lower revision (moved, retitled, re-roomed, re-described):
  REQUEST with a higher SEQUENCE;
- a session sent and not cancelled since, now withdrawn, unpicked or gone: CANCEL;
- anything else: nothing.
SEQUENCE follows the session's revision, and is always above the last one sent for that UID
(RFC 5546 section 2.1.4), so a session unpicked (CANCEL at n+1) and picked again is sent at n+2.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from feeds.model import Schedule, Session
from server.mail.itip import Method


@dataclass(frozen=True)
class Sent:
    """The last message sent about one session to one address."""

    session_id: str
    uid: str
    sequence: int
    revision: int  # the session's revision it showed
    cancelled: bool


@dataclass(frozen=True)
class Outgoing:
    method: Method
    session: Session
    sequence: int


def plan(schedule: Schedule, picked: Collection[str], sent: Mapping[str, Sent]) -> tuple[Outgoing, ...]:
    """The messages to send, in the schedule's order. The store keeps every session ever
    published (withdrawn ones as cancelled), so every session sent about is in `schedule`."""
    wanted = set(picked)
    out: list[Outgoing] = []
    for session in schedule.sessions:
        last = sent.get(session.id)
        live = session.id in wanted and not session.cancelled
        if live:
            if last is None:
                out.append(Outgoing(Method.REQUEST, session, session.revision))
            elif last.cancelled or last.revision < session.revision:
                out.append(Outgoing(Method.REQUEST, session, max(session.revision, last.sequence + 1)))
        elif last is not None and not last.cancelled:
            out.append(Outgoing(Method.CANCEL, session, max(session.revision, last.sequence + 1)))
    return tuple(out)
