"""The pusher run as the CalDAV tests run it, and what it left on a calendar: one push of picks
to a backend, the resource name of a session's event, the store's ids of the "Talk number N"
sessions, and a real calendar's objects by name."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine

from feeds.model import Schedule
from server.caldav.dav import DavStorage
from server.caldav.events import desired_events, select_sessions
from server.caldav.execute import Summary
from server.caldav.retry import NO_WAIT
from server.caldav.state import SyncState
from server.caldav.storage import name_for
from server.caldav.sync import push
from server.crypto import Password
from server.store import Store
from tests.helpers.push_helpers import CONFERENCE, PASSWORD, USER, Backend


def run_push(
    backend: Backend,
    engine: Engine,
    schedule: Schedule,
    picks: Sequence[str],
    *,
    overwrite: bool = False,
) -> Summary:
    state = SyncState(engine, backend.storage.url, scope=schedule.conference.slug)
    desired = desired_events(schedule, select_sessions(schedule, picks))
    return push(backend.storage, state, desired, overwrite=overwrite, retry=NO_WAIT)


def name_of(session_id: str) -> str:
    return name_for(f"{session_id}@{CONFERENCE.slug}.confcal")


def session_ids(store: Store, *numbers: int) -> tuple[str, ...]:
    schedule = store.live()
    assert schedule is not None
    by_title = {s.title: s.id for s in schedule.sessions}
    return tuple(by_title[f"Talk number {n}"] for n in numbers)


def contents(url: str) -> dict[str, bytes]:
    storage = DavStorage.connect(url, USER, Password(PASSWORD), allow_private=True)
    try:
        return {name: storage.get(name).ics for name in storage.list()}
    finally:
        storage.close()
