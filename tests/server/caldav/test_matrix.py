"""The scenario matrix: what confcal promises about an attendee's calendar, on the seven storages
the pusher meets: the in-memory twin, Radicale, Xandikos, DAViCal, sabre/dav (Nextcloud, Baikal),
Cyrus (Fastmail) and SOGo (the last three from ../shared/caldav-servers behind the cueing proxy).

Scenarios: first push; a no-op re-push with 0 writes; the user's edit (summary, alarm) kept across
a move; a UID the user imported by hand, in the same calendar and in another one; unpick;
withdrawn session; a foreign event left byte-identical; a lost answer after each kind of write;
discovery from the server's root URL, a new calendar made there and pushed into; removing our
events at detach (remove_events=1); the same through the page's API (discovery, a new calendar,
the server's sync with the stored credentials, DELETE with remove_events=1); vdirsyncer and khal reading the calendar (tests/helpers/khal.py). Where a server answers differently by design (Cyrus holds a
UID once per account), the test says so in its expectations, not with a skip.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from sqlalchemy import Engine

from feeds.ical import uid
from feeds.model import Schedule
from server.caldav import service
from server.caldav.dav import DavStorage
from server.caldav.discovery import discover, make_calendar
from server.caldav.events import desired_events, select_sessions
from server.caldav.retry import NO_WAIT
from server.caldav.storage import Storage, name_for
from server.caldav.target import ALLOW_PRIVATE_ENV, PickToken, SyncOptions, Target
from server.crypto import Password
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.web.app import create_app
from tests.helpers import khal
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.caldav_helpers import send_json
from tests.helpers.cue_proxy import CueingServer, cueing
from tests.helpers.push_helpers import (
    CONFERENCE,
    Backend,
    DavBackend,
    DavServer,
    MemoryBackend,
    edited,
    event_ics,
    lose_answer,
    make_schedule,
    moved,
    sequence_of,
    start_of,
    summary_of,
    uid_counts,
    withdrawn,
)
from tests.helpers.push_runs import name_of, run_push

SHARED = ("sabre", "cyrus", "sogo")
SERVERS = ("radicale", "xandikos", "davical", *SHARED)
# Cyrus refuses a second object with a UID anywhere in the account (RFC 6638 section 3.2.4.1).
ONE_UID_PER_ACCOUNT = {"cyrus"}
OPTIONS = SyncOptions(retry=NO_WAIT, allow_private=True)  # every server listens on loopback
ALARM = b"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nTRIGGER:-PT10M\r\nEND:VALARM\r\n"


def _made(request: pytest.FixtureRequest, kind: str) -> DavBackend:
    if kind in SHARED:
        return DavBackend(cueing(request, kind))
    return DavBackend(request.getfixturevalue(kind))


def _cleanup(request: pytest.FixtureRequest, kind: str, *urls: str) -> None:
    # Cyrus holds a UID once per account: the next test's events need these calendars gone.
    if kind in SHARED:
        for url in urls:
            cueing(request, kind).request("DELETE", url)


@pytest.fixture(params=["memory", *SERVERS])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    made: Backend = MemoryBackend() if request.param == "memory" else _made(request, request.param)
    yield made
    made.close()
    if isinstance(made, DavBackend):
        _cleanup(request, request.param, made.url)


@pytest.fixture(params=SERVERS)
def server_kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
def dav_backend(request: pytest.FixtureRequest, server_kind: str) -> Iterator[DavBackend]:
    made = _made(request, server_kind)
    yield made
    made.close()
    _cleanup(request, server_kind, made.url)


def read(url: str, username: str, password: str) -> dict[str, bytes]:
    storage = DavStorage.connect(url, username, Password(password), allow_private=True)
    try:
        return {name: storage.get(name).ics for name in storage.list()}
    finally:
        storage.close()


def with_alarm(ics: bytes) -> bytes:
    return ics.replace(b"END:VEVENT", ALARM + b"END:VEVENT", 1)


def other_calendar(backend: DavBackend) -> str:
    server = backend.server
    return server.new_calendar("Personal") if isinstance(server, CueingServer) else server.new_calendar()


def root_of(request: pytest.FixtureRequest, kind: str) -> tuple[str, str, str]:
    """Where an attendee would start: the server's root URL (SOGo's and DAViCal's DAV root, as
    their well-known URI leads nowhere), with the account's user name and password."""
    if kind in SHARED:
        shared = cueing(request, kind).shared
        parts = urlsplit(shared.base)
        root = shared.base if kind == "sogo" else f"{parts.scheme}://{parts.netloc}/"
        return root, shared.username, shared.password
    server: DavServer = request.getfixturevalue(kind)
    prefix = "caldav.php/" if kind == "davical" else ""
    return f"http://127.0.0.1:{server.port}/{prefix}", server.username, server.password


@dataclasses.dataclass(frozen=True)
class _Pushing:
    """A Backend-shaped holder of a storage, for run_push."""

    storage: Storage


@dataclasses.dataclass(frozen=True)
class _Store:
    """The push service's store for a removal: only the sync state (in `engine`) is read."""

    engine: Engine

    def live(self, conference: str | None = None) -> Schedule | None:
        return None


class TestScenarios:
    """Every scenario on the seven storages (the `backend` fixture above)."""

    def test_first_push_creates_exactly_the_picks_with_feed_uids_and_utc_instants(
        self, backend: Backend, engine: Engine
    ) -> None:
        schedule = make_schedule(4)

        summary = run_push(backend, engine, schedule, ["s0", "s2", "s3"])

        assert summary.line() == "created 3, updated 0, deleted 0, unchanged 0, conflicts 0"
        contents = backend.contents()
        expected = {uid(CONFERENCE, s): s.start for s in schedule.sessions if s.id in {"s0", "s2", "s3"}}
        assert uid_counts(contents) == {u: 1 for u in expected}
        assert {name_for(u): start for u, start in expected.items()} == {n: start_of(b) for n, b in contents.items()}

    def test_second_push_makes_no_put_and_no_delete(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(4)
        run_push(backend, engine, schedule, ["s0", "s1"])
        writes_before = backend.writes()

        summary = run_push(backend, engine, schedule, ["s0", "s1"])

        assert backend.writes() == writes_before
        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 2, conflicts 0"

    def test_moved_session_updated_in_place_and_withdrawn_one_deleted(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(4)
        run_push(backend, engine, schedule, ["s0", "s1", "s2"])
        sequence_before = sequence_of(backend.contents()[name_of("s1")])
        changed = withdrawn(moved(schedule, "s1", minutes=90), "s2")

        summary = run_push(backend, engine, changed, ["s0", "s1", "s2"])

        assert summary.line() == "created 0, updated 1, deleted 1, unchanged 1, conflicts 0"
        contents = backend.contents()
        assert sorted(contents) == sorted([name_of("s0"), name_of("s1")])
        moved_session = changed.session("s1")
        assert moved_session is not None
        assert start_of(contents[name_of("s1")]) == moved_session.start
        # Calendar apps take an update only when SEQUENCE rises: up by exactly one per revision.
        assert sequence_of(contents[name_of("s1")]) == sequence_before + 1

    def test_owner_edit_survives_a_schedule_change_and_is_reported(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(3)
        run_push(backend, engine, schedule, ["s0", "s1"])
        mine = edited(backend.contents()[name_of("s1")], "Talk 1 - sit near the door")
        backend.owner_put(name_of("s1"), mine)
        writes_before = backend.writes()

        summary = run_push(backend, engine, moved(schedule, "s1"), ["s0", "s1"])

        assert backend.writes() == writes_before
        assert summary_of(backend.contents()[name_of("s1")]) == "Talk 1 - sit near the door"
        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1"
        assert summary.conflicts == [
            f"{uid(CONFERENCE, schedule.sessions[1])}: changed in the calendar since the last push; kept the calendar's version"
        ]

    def test_owner_edit_alone_is_kept_silently(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(2)
        run_push(backend, engine, schedule, ["s0"])
        backend.owner_put(name_of("s0"), edited(backend.contents()[name_of("s0")], "Mine"))

        summary = run_push(backend, engine, schedule, ["s0"], overwrite=True)

        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 0"
        assert summary_of(backend.contents()[name_of("s0")]) == "Mine"

    def test_unpicked_event_deleted_and_owners_own_event_never_touched(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(3)
        lunch = event_ics("lunch-with-sam@owner.example", "Lunch with Sam", schedule.sessions[0].start)
        backend.owner_put("lunch.ics", lunch)
        run_push(backend, engine, schedule, ["s0", "s1"])
        owners_before = backend.contents()["lunch.ics"]

        summary = run_push(backend, engine, schedule, ["s0"], overwrite=True)

        assert summary.line() == "created 0, updated 0, deleted 1, unchanged 1, conflicts 0"
        contents = backend.contents()
        assert sorted(contents) == sorted(["lunch.ics", name_of("s0")])
        assert contents["lunch.ics"] == owners_before

    def test_owner_deleted_then_schedule_changed_is_a_conflict_not_a_resurrection(
        self, backend: Backend, engine: Engine
    ) -> None:
        schedule = make_schedule(2)
        run_push(backend, engine, schedule, ["s0"])
        backend.owner_delete(name_of("s0"))

        unchanged = run_push(backend, engine, schedule, ["s0"])
        changed = run_push(backend, engine, moved(schedule, "s0"), ["s0"])

        assert unchanged.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 0"
        assert changed.line() == "created 0, updated 0, deleted 0, unchanged 0, conflicts 1"
        assert backend.contents() == {}

    def test_same_uid_already_imported_by_the_owner_is_not_duplicated(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(2)
        (event,) = desired_events(schedule, select_sessions(schedule, ["s0"]))
        backend.owner_put("imported-from-download.ics", event.ics)

        summary = run_push(backend, engine, schedule, ["s0"])

        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 0, conflicts 1"
        assert uid_counts(backend.contents()) == {event.uid: 1}

    def test_a_push_for_another_conference_leaves_the_first_ones_events(self, backend: Backend, engine: Engine) -> None:
        first = make_schedule(2)
        other = dataclasses.replace(
            make_schedule(2),
            conference=dataclasses.replace(CONFERENCE, name="Other Conf 2026", slug=""),
        )
        run_push(backend, engine, first, ["s0", "s1"])

        summary = run_push(backend, engine, other, ["s1"])

        assert summary.line() == "created 1, updated 0, deleted 0, unchanged 0, conflicts 0"
        assert sorted(uid_counts(backend.contents())) == sorted(
            [uid(first.conference, s) for s in first.sessions] + [uid(other.conference, other.sessions[1])]
        )

    def test_the_users_alarm_is_kept_across_a_move_and_reported(self, backend: Backend, engine: Engine) -> None:
        schedule = make_schedule(2)
        run_push(backend, engine, schedule, ["s0", "s1"])
        mine = with_alarm(backend.contents()[name_of("s1")])
        backend.owner_put(name_of("s1"), mine)
        writes_before = backend.writes()

        summary = run_push(backend, engine, moved(schedule, "s1"), ["s0", "s1"])

        assert backend.writes() == writes_before
        assert b"BEGIN:VALARM" in backend.contents()[name_of("s1")]
        assert summary.line() == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1"

    @pytest.mark.parametrize("write", ["create", "update", "delete"])
    def test_a_lost_answer_after_each_kind_of_write_leaves_one_event_and_a_clean_next_run(
        self, backend: Backend, engine: Engine, write: str
    ) -> None:
        schedule = make_schedule(2)
        run_push(backend, engine, schedule, ["s0"] if write == "create" else ["s0", "s1"])
        later, picks = {
            "create": (schedule, ["s0", "s1"]),
            "update": (moved(schedule, "s1"), ["s0", "s1"]),
            "delete": (schedule, ["s0"]),
        }[write]
        backend.cue(lose_answer("DELETE" if write == "delete" else "PUT", name_of("s1")))

        summary = run_push(backend, engine, later, picks)
        writes_before = backend.writes()
        again = run_push(backend, engine, later, picks)

        done = {"create": "created 1", "update": "updated 1", "delete": "deleted 1"}[write]
        assert (
            summary.line()
            == {
                "create": "created 1, updated 0, deleted 0, unchanged 1, conflicts 0",
                "update": "created 0, updated 1, deleted 0, unchanged 1, conflicts 0",
                "delete": "created 0, updated 0, deleted 1, unchanged 1, conflicts 0",
            }[write]
        ), done
        assert again.line() == f"created 0, updated 0, deleted 0, unchanged {len(picks)}, conflicts 0"
        assert backend.writes() == writes_before
        wanted = {uid(CONFERENCE, s) for s in schedule.sessions if s.id in picks}
        assert uid_counts(backend.contents()) == {u: 1 for u in wanted}


def test_a_uid_imported_into_another_calendar_of_the_account(
    request: pytest.FixtureRequest, dav_backend: DavBackend, server_kind: str, engine: Engine
) -> None:
    schedule = make_schedule(2)
    (event,) = desired_events(schedule, select_sessions(schedule, ["s1"]))
    personal = other_calendar(dav_backend)
    dav_backend.server.request("PUT", personal + "imported.ics", event.ics, {"Content-Type": "text/calendar"})
    reader = DavStorage.connect(
        personal, dav_backend.server.username, Password(dav_backend.server.password), allow_private=True
    )
    try:
        imported_before = reader.get("imported.ics").ics

        summary = run_push(dav_backend, engine, schedule, ["s0", "s1"])

        imported_after = reader.get("imported.ics").ics
    finally:
        reader.close()
        _cleanup(request, server_kind, personal)
    if server_kind in ONE_UID_PER_ACCOUNT:
        assert (summary.line(), summary.counts.elsewhere) == (
            "created 1, updated 0, deleted 0, unchanged 0, conflicts 1",
            1,
        )
        assert summary.conflicts == [f"{event.uid}: already in your calendar 'Personal'; left alone"]
    else:
        assert (summary.line(), summary.counts.elsewhere) == (
            "created 2, updated 0, deleted 0, unchanged 0, conflicts 0",
            0,
        )
    assert imported_after == imported_before


def test_discovered_from_the_root_a_new_calendar_is_pushed_into_then_our_events_removed(
    request: pytest.FixtureRequest, server_kind: str, engine: Engine
) -> None:
    root, username, password = root_of(request, server_kind)
    secret = Password(password)
    found = discover(root, username, secret, allow_private=True)
    made = make_calendar(found.home, "Conference picks", username, secret, allow_private=True)
    schedule = make_schedule(2)
    storage = DavStorage.connect(made.url, username, secret, allow_private=True)
    lunch = event_ics("lunch-with-sam@owner.example", "Lunch with Sam", schedule.sessions[0].start)
    try:
        storage.create("lunch.ics", lunch)
        lunch_before = storage.get("lunch.ics").ics
        pushed = run_push(_Pushing(storage), engine, schedule, ["s0", "s1"])  # type: ignore[arg-type]
        listed = [c.label for c in discover(root, username, secret, allow_private=True).calendars if c.url == made.url]

        removed = service.remove(
            _Store(engine), Target(made.url, username, secret), conference=CONFERENCE.slug, options=OPTIONS
        )

        left = {name: storage.get(name).ics for name in storage.list()}
    finally:
        storage.close()
        _cleanup(request, server_kind, made.url)
    assert pushed.line() == "created 2, updated 0, deleted 0, unchanged 0, conflicts 0"
    assert listed == ["Conference picks"]
    assert removed.line() == "created 0, updated 0, deleted 2, unchanged 0, conflicts 0"
    assert left == {"lunch.ics": lunch_before}


def test_vdirsyncer_and_khal_read_the_pushed_calendar_without_a_warning(
    dav_backend: DavBackend, engine: Engine, tmp_path: Path
) -> None:
    khal.tools_ready()
    schedule = make_schedule(2)
    run_push(dav_backend, engine, schedule, ["s0", "s1"])

    events = khal.read_caldav(dav_backend.url, dav_backend.server.username, dav_backend.server.password, tmp_path)

    assert sorted((e.uid, e.summary, e.start) for e in events) == sorted(
        (uid(CONFERENCE, s), s.title, s.start) for s in schedule.sessions
    )


def test_attached_on_the_page_from_the_servers_root_synced_by_the_server_and_detached_with_its_events(
    request: pytest.FixtureRequest, server_kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")  # every server listens on loopback
    root, username, password = root_of(request, server_kind)
    with Store.open(str(tmp_path / "store.db")) as store:
        store.ingest(make_schedule(3))
        http = Http(create_app(store, clock=lambda: NOW))
        ids = [s["id"] for s in http.get("/api/sessions").json_doc()["sessions"]][:2]
        token = send_json(http, "POST", "/api/picks", {"sessions": ids}).json_doc()["token"]
        account = {"username": username, "password": password}
        home = send_json(http, "POST", f"/api/picks/{token}/caldav/calendars", {"server": root, **account})
        made = send_json(
            http,
            "POST",
            f"/api/picks/{token}/caldav",
            {"url": home.json_doc()["home"], **account, "new_calendar": "Conference picks"},
        )
        url = made.json_doc()["url"]
        try:
            targets = CaldavTargets(store.engine)
            stored = targets.by_token(token)
            assert stored is not None
            credentials = targets.credentials(stored.id)
            assert credentials is not None
            synced = service.sync(
                store,
                Target(credentials.url, credentials.username, credentials.password, id=str(stored.id)),
                PickToken(token),
                options=OPTIONS,
            )
            pushed = sorted(uid_counts(read(url, username, password)))
            feed = sorted(uid_counts({"feed": http.get(f"/p/{token}.ics").content}))
            detached = http.request("DELETE", f"/api/picks/{token}/caldav?remove_events=1")
            left = read(url, username, password)
        finally:
            _cleanup(request, server_kind, url)
    assert (home.status, made.status, detached.status) == (200, 201, 204)
    assert synced.line() == "created 2, updated 0, deleted 0, unchanged 0, conflicts 0"
    assert (len(pushed), pushed) == (2, feed)
    assert left == {}
