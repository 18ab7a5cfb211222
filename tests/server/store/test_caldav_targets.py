"""The caldav_targets table on SQLite and PostgreSQL (the `store` fixture runs both): attach,
passwords encrypted, wanting syncs, the lease, recording results, detaching and key rotation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from server.caldav.target import Password
from server.crypto import Cipher, new_key
from server.store import Store
from server.store.caldav_targets import (
    CaldavTargets,
    CalendarTaken,
    Credentials,
    SyncCounts,
    TargetState,
)
from server.store.picks import PickStore
from server.store.tables import caldav_targets

NOW = datetime(2026, 4, 1, 9, tzinfo=UTC)
LEASE = timedelta(minutes=5)
URL = "https://dav.example.org/cal/me/conf/"
PASSWORD = "app-password-1234"
KEY = new_key().encode()


def targets_of(store: Store, *keys: bytes) -> CaldavTargets:
    return CaldavTargets(store.engine, cipher=lambda: Cipher(list(keys or (KEY,))))


def attached(store: Store, token: str = "t" * 24, url: str = URL) -> tuple[CaldavTargets, int]:
    targets = targets_of(store)
    target = targets.attach("conf", token, url, "me", Password(PASSWORD), NOW)
    return targets, target.id


def test_attach_stores_the_password_encrypted_and_wants_a_sync(store: Store) -> None:
    targets, target_id = attached(store)

    target = targets.get(target_id)
    with store.engine.connect() as conn:
        stored = conn.execute(select(caldav_targets.c.password)).scalar_one()

    assert target is not None
    assert (target.url, target.username, target.state) == (URL, "me", TargetState.ACTIVE)
    assert (target.wanted_generation, target.synced_generation) == (1, 0)
    assert PASSWORD not in stored
    assert targets.credentials(target_id) == Credentials(URL, "me", Password(PASSWORD))
    assert [t.id for t in targets.due(NOW)] == [target_id]


def test_reattaching_replaces_the_credentials_and_wants_another_sync(store: Store) -> None:
    targets, target_id = attached(store)

    again = targets.attach("conf", "t" * 24, URL + "other/", "me2", Password("new"), NOW)

    assert again.id == target_id
    assert (again.url, again.username, again.wanted_generation) == (URL + "other/", "me2", 2)
    assert targets.credentials(target_id) == Credentials(URL + "other/", "me2", Password("new"))


def test_one_calendar_cannot_follow_two_pick_sets_of_a_conference(store: Store) -> None:
    targets, _ = attached(store)

    with pytest.raises(CalendarTaken):
        targets.attach("conf", "u" * 24, URL, "me", Password(PASSWORD), NOW)
    other = targets.attach("other-conf", "v" * 24, URL, "me", Password(PASSWORD), NOW)

    assert other.conference == "other-conf"


def test_a_successful_sync_records_counts_and_the_generation_it_started_from(store: Store) -> None:
    targets, target_id = attached(store)
    claimed = targets.claim(target_id, "worker-1", NOW, LEASE)
    assert claimed is not None
    targets.want_sync("t" * 24)  # the picks change during the sync

    recorded = targets.succeeded(
        target_id, "worker-1", claimed.wanted_generation, SyncCounts(created=3), NOW
    )

    target = targets.get(target_id)
    assert recorded is True
    assert target is not None
    assert (target.last_result, target.counts, target.last_sync) == ("ok", SyncCounts(created=3), NOW)
    assert (target.synced_generation, target.wanted_generation) == (1, 2)
    assert (target.lease_owner, target.lease_until) == (None, None)
    assert [t.id for t in targets.due(NOW)] == [target_id]  # still due for the change


def test_the_lease_admits_one_sync_at_a_time_until_it_expires(store: Store) -> None:
    targets, target_id = attached(store)

    first = targets.claim(target_id, "worker-1", NOW, LEASE)
    second = targets.claim(target_id, "worker-2", NOW + timedelta(minutes=1), LEASE)
    due_while_held = targets.due(NOW + timedelta(minutes=1))
    late = targets.claim(target_id, "worker-2", NOW + LEASE + timedelta(seconds=1), LEASE)
    stale_finish = targets.succeeded(target_id, "worker-1", 1, SyncCounts(), NOW + LEASE)

    assert first is not None and first.lease_owner == "worker-1"
    assert (second, due_while_held) == (None, [])
    assert late is not None and late.lease_owner == "worker-2"
    assert stale_finish is False


def test_refused_credentials_stop_the_syncs_until_a_new_attach(store: Store) -> None:
    targets, target_id = attached(store)
    targets.claim(target_id, "w", NOW, LEASE)

    targets.failed(target_id, "w", "AuthenticationFailed: cannot log in", NOW, retry_at=None, needs_credentials=True)
    targets.want_sync("t" * 24)

    target = targets.get(target_id)
    assert target is not None
    assert (target.state, target.last_result, target.attempts) == (TargetState.NEEDS_CREDENTIALS, "error", 1)
    assert target.last_error == "AuthenticationFailed: cannot log in"
    assert targets.due(NOW + timedelta(days=1)) == []
    assert targets.attach("conf", "t" * 24, URL, "me", Password("fixed"), NOW).state is TargetState.ACTIVE


def test_a_failure_waits_until_its_retry_time(store: Store) -> None:
    targets, target_id = attached(store)
    targets.claim(target_id, "w", NOW, LEASE)

    targets.failed(target_id, "w", "ServerFailed: HTTP 503", NOW, retry_at=NOW + timedelta(seconds=30))

    assert targets.due(NOW + timedelta(seconds=29)) == []
    assert [t.attempts for t in targets.due(NOW + timedelta(seconds=30))] == [1]


def test_a_new_schedule_version_wants_a_sync_of_every_active_target_of_its_conference(store: Store) -> None:
    targets, first = attached(store)
    second = targets.attach("conf", "u" * 24, URL + "2/", "me", Password(PASSWORD), NOW).id
    targets.attach("other", "v" * 24, URL, "me", Password(PASSWORD), NOW)

    bumped = targets.want_sync_for_conference("conf")

    assert sorted(bumped) == sorted([first, second])
    assert [t.wanted_generation for t in map(targets.get, (first, second)) if t] == [2, 2]


def test_detaching_holds_the_lease_and_stops_syncs_then_deletes(store: Store) -> None:
    targets, target_id = attached(store)
    held = targets.claim(target_id, "w", NOW, LEASE)

    refused = targets.begin_detach("t" * 24, "api", NOW, LEASE)
    targets.release(target_id, "w")
    detaching = targets.begin_detach("t" * 24, "api", NOW, LEASE)
    claim_while_detaching = targets.claim(target_id, "w", NOW, LEASE)
    gone = targets.detach("t" * 24)

    assert held is not None and refused is None
    assert detaching is not None and detaching.state is TargetState.DETACHING
    assert claim_while_detaching is None
    assert (gone, targets.get(target_id), targets.detach("t" * 24)) == (True, None, False)


def test_a_failed_removal_puts_the_target_back(store: Store) -> None:
    targets, target_id = attached(store)
    targets.begin_detach("t" * 24, "api", NOW, LEASE)

    targets.abort_detach(target_id, "api", TargetState.ACTIVE)

    target = targets.get(target_id)
    assert target is not None and (target.state, target.lease_owner) == (TargetState.ACTIVE, None)


def test_targets_of_purged_pick_sets_are_dropped(store: Store) -> None:
    picks = PickStore(store.engine)
    kept = picks.create("conf", ["a"])
    targets = targets_of(store)
    kept_id = targets.attach("conf", kept.token, URL, "me", Password(PASSWORD), NOW).id
    targets.attach("conf", "w" * 24, URL + "x/", "me", Password(PASSWORD), NOW)

    dropped = targets.drop_orphans()

    assert (dropped, targets.ids()) == (1, [kept_id])


def test_rotation_reencrypts_every_password_with_the_new_first_key(store: Store) -> None:
    targets, target_id = attached(store)
    new = new_key().encode()

    rotated = targets_of(store, new, KEY).rotate_keys()

    assert rotated == 1
    assert targets_of(store, new).credentials(target_id) == Credentials(URL, "me", Password(PASSWORD))
