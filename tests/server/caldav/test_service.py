"""The push service (server/caldav/service.py) against real servers: what the CLI and the sync
jobs call. Counts, the shared event cache, probe, remove, the address guard, credentials sent on
the first request, and logs without secrets."""

from __future__ import annotations

import base64
import logging
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from feeds.ical import EventCache
from server.caldav import service
from server.caldav.errors import (
    AddressNotAllowed,
    AuthenticationFailed,
    BadCalendarUrl,
    CalendarNotFound,
    NotACalendar,
    PicksNotFound,
    ServerUnreachable,
)
from server.caldav.retry import NO_WAIT, RetryPolicy
from server.caldav.target import PickToken, SessionIds, SyncOptions, Target
from server.crypto import Password
from server.snapshot.published import Published
from server.store import Store
from server.store.picks import PickStore
from tests.helpers.push_helpers import (
    PASSWORD,
    USER,
    DavServer,
    event_ics,
    make_schedule,
    start_of,
    uid_counts,
)
from tests.helpers.push_runs import contents, session_ids

OPTIONS = SyncOptions(retry=NO_WAIT, allow_private=True)  # the test servers are on loopback
SLUG = "pytorch-conference-europe-2026"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(str(tmp_path / "store.db")) as opened:
        opened.ingest(make_schedule(4))
        yield opened


def target(url: str, password: str = PASSWORD, **extra: str) -> Target:
    return Target(url, USER, Password(password), **extra)


def test_sync_of_a_pick_token_returns_counts_and_duration(dav_server: DavServer, store: Store) -> None:
    calendar = dav_server.new_calendar()
    token = PickStore(store.engine).create(SLUG, session_ids(store, 1, 3)).token

    first = service.sync(store, target(calendar), PickToken(token), options=OPTIONS)
    PickStore(store.engine).replace(token, session_ids(store, 3))
    second = service.sync(store, target(calendar), PickToken(token), options=OPTIONS)

    assert (first.created, first.updated, first.deleted, first.unchanged) == (2, 0, 0, 0)
    assert (second.created, second.deleted, second.unchanged, second.conflicts) == (0, 1, 1, ())
    assert first.duration > timedelta(0)
    assert first.target == calendar
    assert sorted(uid_counts(contents(calendar)).values()) == [1]


def test_events_are_rendered_through_the_cache_the_feeds_share(radicale: DavServer, store: Store) -> None:
    schedule = store.live()
    assert schedule is not None
    cache = EventCache()
    Published(schedule, now=schedule.sessions[0].start, cache=cache)  # the feeds render once
    rendered_by_feeds = cache.renders

    result = service.sync(
        store,
        target(radicale.new_calendar()),
        SessionIds(session_ids(store, 0, 1, 2)),
        options=OPTIONS,
        cache=cache,
    )

    assert rendered_by_feeds == 4
    assert (result.created, cache.renders) == (3, 4)


def test_a_repeat_sync_renders_nothing_again(radicale: DavServer, store: Store) -> None:
    cache = EventCache()
    calendar, picks = radicale.new_calendar(), SessionIds(session_ids(store, 0, 1))

    service.sync(store, target(calendar), picks, options=OPTIONS, cache=cache)
    again = service.sync(store, target(calendar), picks, options=OPTIONS, cache=cache)

    assert (again.unchanged, cache.renders) == (2, 2)


def test_preview_plans_without_writing(radicale: DavServer, store: Store) -> None:
    calendar = radicale.new_calendar()
    before = radicale.counts()

    found = service.preview(store, target(calendar), SessionIds(session_ids(store, 2)), options=OPTIONS)

    assert [a.verb for a in found.actions] == ["create"]
    assert list(found.titles.values()) == ["Talk number 2"]
    assert radicale.counts()["PUT"] == before["PUT"]


def test_unknown_token_is_named_without_the_token(radicale: DavServer, store: Store) -> None:
    token = "y" * 24

    with pytest.raises(PicksNotFound) as raised:
        service.sync(store, target(radicale.new_calendar()), PickToken(token), options=OPTIONS)

    assert token not in str(raised.value)
    assert token not in repr(PickToken(token))


class TestProbe:
    def test_a_calendar_with_the_right_password_passes(self, dav_server: DavServer) -> None:
        service.probe(target(dav_server.new_calendar()), OPTIONS)

    def test_a_wrong_password_is_refused_credentials(self, dav_server: DavServer) -> None:
        with pytest.raises(AuthenticationFailed):
            service.probe(target(dav_server.new_calendar(), "wrong-password-1"), OPTIONS)

    def test_the_principal_is_not_a_calendar(self, dav_server: DavServer) -> None:
        dav_server.new_calendar()

        with pytest.raises(NotACalendar):
            service.probe(target(dav_server.base_url), OPTIONS)

    def test_a_missing_calendar_is_not_found(self, dav_server: DavServer) -> None:
        with pytest.raises(CalendarNotFound):
            service.probe(target(dav_server.base_url + "nothing-here/"), OPTIONS)

    def test_loopback_is_refused_unless_private_addresses_are_allowed(self, radicale: DavServer) -> None:
        calendar = radicale.new_calendar()
        before = radicale.counts()

        with pytest.raises(AddressNotAllowed) as raised:
            service.probe(target(calendar), SyncOptions(retry=NO_WAIT))

        assert "127.0.0.1" in str(raised.value)
        assert radicale.counts() == before  # refused before connecting

    def test_a_name_resolving_to_loopback_is_refused(self, radicale: DavServer) -> None:
        calendar = radicale.new_calendar().replace("127.0.0.1", "localhost")

        with pytest.raises(AddressNotAllowed):
            service.probe(target(calendar), SyncOptions(retry=NO_WAIT))

    def test_only_http_urls(self) -> None:
        with pytest.raises(BadCalendarUrl):
            service.probe(target("ftp://calendar.example.org/alice/cal/"), OPTIONS)

    def test_a_dead_port_is_unreachable(self, radicale: DavServer) -> None:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{sock.getsockname()[1]}/alice/cal/"

        with pytest.raises(ServerUnreachable):
            service.probe(target(url), SyncOptions(retry=RetryPolicy(attempts=1), allow_private=True))


def test_remove_deletes_only_what_confcal_created(dav_server: DavServer, store: Store) -> None:
    calendar = dav_server.new_calendar()
    service.sync(store, target(calendar), SessionIds(session_ids(store, 0, 1)), options=OPTIONS)
    owner = event_ics("dentist@example.org", "Dentist", start_of(contents(calendar)[sorted(contents(calendar))[0]]))
    dav_server.request("PUT", calendar + "dentist.ics", owner, {"Content-Type": "text/calendar"})

    result = service.remove(store, target(calendar), conference=SLUG, options=OPTIONS)

    assert (result.deleted, result.conflicts) == (2, ())
    assert list(uid_counts(contents(calendar))) == ["dentist@example.org"]


def test_credentials_go_with_the_first_request_so_no_401(dav_server: DavServer, store: Store) -> None:
    calendar = dav_server.new_calendar()
    before = dav_server.counts()

    service.sync(store, target(calendar), SessionIds(session_ids(store, 0, 1)), options=OPTIONS)
    service.probe(target(calendar), OPTIONS)

    after = dav_server.counts()
    assert after["PUT"] - before["PUT"] == 2
    assert after["status 401"] - before["status 401"] == 0


def test_logs_name_target_counts_duration_and_never_password_or_token(
    radicale: DavServer, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    calendar = radicale.new_calendar()
    token = PickStore(store.engine).create(SLUG, session_ids(store, 0)).token
    caplog.set_level(logging.DEBUG)

    service.sync(store, target(calendar, id="target-7"), PickToken(token), options=OPTIONS)
    with pytest.raises(AuthenticationFailed):
        service.sync(store, target(calendar, "wrong-pass-42", id="target-7"), PickToken(token), options=OPTIONS)

    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    mine = [r.getMessage() for r in caplog.records if r.name == "confcal.caldav"]
    assert [m.split(" duration=")[0] for m in mine] == [
        "caldav sync target=target-7 created=1 updated=0 deleted=0 unchanged=0 conflicts=0",
        "caldav sync target=target-7 failed error=AuthenticationFailed",
    ]
    assert [s for s in (PASSWORD, "wrong-pass-42", basic, token) if s in caplog.text] == []


def test_password_repr_and_str_hide_it() -> None:
    secret = Password("hunter2-long-secret")
    made = target("https://cal.example.org/a/", "hunter2-long-secret")

    assert "hunter2" not in repr(secret) + str(secret) + f"{secret}" + repr(made)
    assert secret.reveal() == "hunter2-long-secret"
