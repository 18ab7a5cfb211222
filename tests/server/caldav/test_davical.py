"""DAViCal, the server that does not enforce UID uniqueness: confcal must not rely on the server to
refuse a second object with a UID the calendar already holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from feeds.ical import render_session, uid
from server.caldav import service
from server.caldav.retry import NO_WAIT
from server.caldav.target import SessionIds, SyncOptions, Target
from server.crypto import Password
from server.store import Store
from tests.helpers.push_helpers import PASSWORD, USER, DavServer, connect, make_schedule, uid_counts

OPTIONS = SyncOptions(retry=NO_WAIT, allow_private=True)  # DAViCal listens on loopback


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(str(tmp_path / "store.db")) as opened:
        opened.ingest(make_schedule(2))
        yield opened


def test_a_session_imported_by_hand_is_left_alone_not_duplicated(davical: DavServer, store: Store) -> None:
    schedule = store.live()
    assert schedule is not None
    session = schedule.sessions[0]
    calendar = davical.new_calendar()
    # The attendee imported the session's download into this calendar, under their app's own name.
    download = render_session(schedule.conference, session, method=None)
    davical.request("PUT", calendar + "imported-by-hand.ics", download, {"Content-Type": "text/calendar"})
    target = Target(calendar, USER, Password(PASSWORD))

    result = service.sync(store, target, SessionIds((session.id,)), options=OPTIONS)

    storage = connect(calendar)
    held = {name: storage.get(name).ics for name in storage.list()}
    storage.close()
    the_uid = uid(schedule.conference, session)
    assert uid_counts(held)[the_uid] == 1
    assert sorted(held) == ["imported-by-hand.ics"]
    assert (result.created, result.conflicts) == (
        0,
        (f"{the_uid}: the calendar already holds this UID in an event confcal did not create; left alone",),
    )
