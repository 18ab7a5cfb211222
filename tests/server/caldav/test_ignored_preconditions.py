"""Never clobber the owner's edit on a server that ignores preconditions: SOGo 5.8 overwrites on a
PUT with If-None-Match: * and deletes on a DELETE whose If-Match no longer matches
(../shared/caldav-servers/README.md). The owner's edits land between our listing and our write:
`EditAfterListing` passes every call to the real server and makes the owner's change, with the
owner's own raw client, right after our PROPFIND listing."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from feeds.ical import uid
from feeds.model import Schedule
from server.caldav.dav import DavStorage
from server.caldav.events import desired_events, select_sessions
from server.caldav.execute import Summary
from server.caldav.retry import NO_WAIT
from server.caldav.state import SyncState
from server.caldav.storage import Item
from server.caldav.sync import push
from server.cli import main
from server.crypto import Password
from server.store import Store
from tests.helpers.push_helpers import (
    CONFERENCE,
    DAY_START_UTC,
    PASSWORD,
    DavServer,
    edited,
    event_ics,
    make_schedule,
    moved,
    summary_of,
)
from tests.helpers.push_runs import name_of
from tests.helpers.shared_caldav import SharedServer

SCHEDULE = make_schedule(2)
UID = {s.id: uid(CONFERENCE, s) for s in SCHEDULE.sessions}


class EditAfterListing:
    """The Storage contract over a real DavStorage; `edit` runs once, right after the listing."""

    def __init__(self, storage: DavStorage, edit: Callable[[], None]) -> None:
        self.storage, self.edit, self.url = storage, edit, storage.url

    def list(self) -> dict[str, str]:
        listing = self.storage.list()
        self.edit()
        return listing

    def get(self, name: str) -> Item:
        return self.storage.get(name)

    def create(self, name: str, ics: bytes) -> str:
        return self.storage.create(name, ics)

    def update(self, name: str, ics: bytes, etag: str) -> str:
        return self.storage.update(name, ics, etag)

    def delete(self, name: str, etag: str) -> None:
        self.storage.delete(name, etag)


@pytest.fixture
def calendar(sogo: SharedServer) -> str:
    return sogo.new_calendar()


@pytest.fixture
def storage(sogo: SharedServer, calendar: str) -> Iterator[DavStorage]:
    made = DavStorage.connect(calendar, sogo.username, Password(sogo.password), allow_private=True)
    yield made
    made.close()


def sync(storage: DavStorage | EditAfterListing, engine: Engine, schedule: Schedule, picks: list[str]) -> Summary:
    state = SyncState(engine, storage.url, scope=schedule.conference.slug)
    return push(storage, state, desired_events(schedule, select_sessions(schedule, picks)), retry=NO_WAIT)


def owner_puts(sogo: SharedServer, calendar: str, name: str, ics: bytes) -> Callable[[], None]:
    """The owner's app writes `ics` at `name`, with no precondition."""

    def edit() -> None:
        sogo.request("PUT", calendar + name, ics, {"Content-Type": "text/calendar"})

    return edit


def bodies(storage: DavStorage) -> dict[str, bytes]:
    return {name: storage.get(name).ics for name in storage.list()}


def test_sogo_is_known_to_ignore_preconditions_and_the_check_finds_it(storage: DavStorage) -> None:
    known = storage.checks_writes

    found = storage.check_preconditions()

    assert (known, found) == (True, True)
    assert list(storage.list()) == []  # the scratch object is gone again


def test_a_server_that_honours_preconditions_is_written_to_as_before(radicale: DavServer) -> None:
    storage = DavStorage.connect(radicale.new_calendar(), "alice", Password(PASSWORD), allow_private=True)
    try:
        known = storage.checks_writes
        found = storage.check_preconditions()
        left: builtins.list[str] = list(storage.list())
    finally:
        storage.close()

    assert (known, found, left) == (False, False, [])


def test_an_edit_between_listing_and_delete_survives_an_unpick(
    sogo: SharedServer, calendar: str, storage: DavStorage, engine: Engine
) -> None:
    sync(storage, engine, SCHEDULE, ["s0", "s1"])
    mine = edited(storage.get(name_of("s1")).ics, "Talk 1 - bring a laptop")

    summary = sync(EditAfterListing(storage, owner_puts(sogo, calendar, name_of("s1"), mine)), engine, SCHEDULE, ["s0"])

    assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1"
    assert summary.conflicts == [f"{UID['s1']}: changed in the calendar since the last push; not deleted"]
    assert summary_of(bodies(storage)[name_of("s1")]) == "Talk 1 - bring a laptop"


def test_an_edit_between_listing_and_update_survives_a_move(
    sogo: SharedServer, calendar: str, storage: DavStorage, engine: Engine
) -> None:
    sync(storage, engine, SCHEDULE, ["s0", "s1"])
    mine = edited(storage.get(name_of("s1")).ics, "Talk 1 - bring a laptop")

    summary = sync(
        EditAfterListing(storage, owner_puts(sogo, calendar, name_of("s1"), mine)),
        engine,
        moved(SCHEDULE, "s1"),
        ["s0", "s1"],
    )

    assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1"
    assert summary.conflicts == [
        f"{UID['s1']}: changed in the calendar since the last push; kept the calendar's version"
    ]
    assert summary_of(bodies(storage)[name_of("s1")]) == "Talk 1 - bring a laptop"


def test_a_name_the_owner_took_between_listing_and_create_is_not_overwritten(
    sogo: SharedServer, calendar: str, storage: DavStorage, engine: Engine
) -> None:
    sync(storage, engine, SCHEDULE, ["s0"])
    theirs = event_ics("dentist@example.org", "Dentist", DAY_START_UTC)

    summary = sync(
        EditAfterListing(storage, owner_puts(sogo, calendar, name_of("s1"), theirs)), engine, SCHEDULE, ["s0", "s1"]
    )

    assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1"
    assert summary.conflicts == [
        f"{UID['s1']}: {name_of('s1')} already exists in the calendar with other content; left alone"
    ]
    assert summary_of(bodies(storage)[name_of("s1")]) == "Dentist"


def test_push_says_that_the_server_ignores_preconditions_and_exits_3_after_a_conflict(
    sogo: SharedServer,
    calendar: str,
    storage: DavStorage,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = str(tmp_path / "store.db")
    with Store.open(db) as store:
        store.ingest(SCHEDULE)
        live = store.live()
    assert live is not None
    ids = [s.id for s in live.sessions]
    monkeypatch.setattr("server.commands.push.RETRY", NO_WAIT)
    monkeypatch.setenv("CAL_PASSWORD", sogo.password)
    argv = ["push", "--calendar", calendar, "--username", sogo.username, "--password-env", "CAL_PASSWORD"]
    argv += ["--db", db, "--allow-private", "--session"]
    first = main([*argv, *ids])
    (name,) = [n for n, ics in bodies(storage).items() if summary_of(ics) == live.sessions[1].title]
    sogo.request("PUT", calendar + name, edited(storage.get(name).ics, "Mine now"), {"Content-Type": "text/calendar"})
    capsys.readouterr()

    unpicked = main([*argv, ids[0]])

    out, err = capsys.readouterr()
    assert (first, unpicked) == (0, 3)
    assert out == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1\n"
    assert err.splitlines()[-1] == (
        "note: this server ignores preconditions; confcal checks each object before changing it"
    )
    assert summary_of(bodies(storage)[name]) == "Mine now"
