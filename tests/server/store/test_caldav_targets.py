"""The caldav_targets table on SQLite and PostgreSQL (the `store` fixture runs both): attach,
passwords encrypted, wanting syncs, detaching and key rotation. The sync lease and the record of
a sync's result are server.jobs.sync_leases' (tests/server/jobs/test_sync_leases.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from server.crypto import Cipher, Password, new_key
from server.jobs import sync_leases
from server.store import Store
from server.store.caldav_targets import (
    CaldavTargets,
    CalendarTaken,
    Credentials,
    TargetState,
)
from server.store.picks import PickStore
from server.store.tables import caldav_targets
from tests.helpers.listed_targets import ListedTargets

NOW = datetime(2026, 4, 1, 9, tzinfo=UTC)
LEASE = timedelta(minutes=5)
URL = "https://dav.example.org/cal/me/conf/"
PASSWORD = "app-password-1234"
KEY = new_key().encode()


def targets_of(store: Store, *keys: bytes) -> ListedTargets:
    return ListedTargets(store.engine, cipher=lambda: Cipher(list(keys or (KEY,))))


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


def test_refused_credentials_stop_the_syncs_until_a_new_attach(store: Store) -> None:
    targets, target_id = attached(store)
    held = sync_leases.claim(store.engine, target_id, 1, "w", NOW, LEASE, per_host=4)
    assert isinstance(held, sync_leases.Claimed)
    sync_leases.finish(store.engine, held, {"state": TargetState.NEEDS_CREDENTIALS.value}, NOW, done=False)

    bumped = targets.want_sync("t" * 24)
    reattached = targets.attach("conf", "t" * 24, URL, "me", Password("fixed"), NOW)

    assert bumped == []
    assert (reattached.state, reattached.wanted_generation) == (TargetState.ACTIVE, 2)


def test_detaching_holds_the_lease_and_stops_syncs_then_deletes(store: Store) -> None:
    targets, target_id = attached(store)
    held = sync_leases.claim(store.engine, target_id, 1, "w", NOW, LEASE, per_host=4)
    assert isinstance(held, sync_leases.Claimed)

    refused = targets.begin_detach("t" * 24, "api", NOW, LEASE)
    sync_leases.finish(store.engine, held, {}, NOW, done=False)
    detaching = targets.begin_detach("t" * 24, "api", NOW, LEASE)
    claim_while_detaching = sync_leases.claim(store.engine, target_id, 1, "w", NOW, LEASE, per_host=4)
    gone = targets.detach("t" * 24)

    assert refused is None
    assert detaching is not None and detaching.state is TargetState.DETACHING
    assert claim_while_detaching is sync_leases.Refused.NOTHING
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
