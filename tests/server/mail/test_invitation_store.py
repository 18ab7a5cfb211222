"""The invitations table (server.store.invitations), on SQLite and PostgreSQL: the confirmation's
24 hours, one code used once, the set's active address kept until stopped, the UIDs, and what
goes when a pick set expires or a confirmation never comes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.crypto import Cipher, SecretUndecryptable, new_key
from server.store import Store
from server.store.invitations import AlreadyActive, Invitations, InvitationState
from server.store.picks import PickStore
from tests.helpers.postgres_cluster import fresh_schema
from tests.server.mail.conftest import ADDRESS, SLUG, change_conf

NOW = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
SITE = "http://testserver"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    if request.param == "sqlite":
        url = str(tmp_path / "store.sqlite")
    else:
        url = fresh_schema(request.getfixturevalue("pg_url"))
        monkeypatch.setenv("CONFCAL_SECRET_KEY", new_key())  # a PostgreSQL store has no key file beside it
    opened = Store.open(url)
    opened.ingest(change_conf(1), now=NOW)  # type: ignore[arg-type]
    yield opened
    opened.close()


def a_set(store: Store) -> str:
    schedule = store.live(SLUG)
    assert schedule is not None
    return PickStore(store.engine, clock=lambda: NOW).create(SLUG, [schedule.sessions[0].id]).token


def test_the_link_confirms_within_24_hours(store: Store) -> None:
    table = Invitations(store.engine)
    asked, code = table.request(SLUG, a_set(store), ADDRESS, SITE, NOW)

    confirmed = table.confirm(code, NOW + timedelta(hours=23, minutes=59))

    assert (asked.state, confirmed and confirmed.state) == (InvitationState.PENDING, InvitationState.ACTIVE)


def test_the_link_expires_after_24_hours(store: Store) -> None:
    table = Invitations(store.engine)
    asked, code = table.request(SLUG, a_set(store), ADDRESS, SITE, NOW)

    late = table.confirm(code, NOW + timedelta(hours=24))

    found = table.get(asked.id)
    assert late is None
    assert found is not None and found.state is InvitationState.PENDING


def test_a_code_confirms_once(store: Store) -> None:
    table = Invitations(store.engine)
    _, code = table.request(SLUG, a_set(store), ADDRESS, SITE, NOW)
    table.confirm(code, NOW)

    again = table.confirm(code, NOW)

    assert again is None


def test_asking_again_for_a_set_already_sent_to_is_refused(store: Store) -> None:
    table = Invitations(store.engine)
    token = a_set(store)
    _, code = table.request(SLUG, token, ADDRESS, SITE, NOW)
    table.confirm(code, NOW)

    with pytest.raises(AlreadyActive) as refused:
        table.request(SLUG, token, "other@mail.example.net", SITE, NOW)

    assert str(refused.value) == "invitations of these picks already go to an address; stop them first"


def test_asking_again_while_pending_replaces_the_address_and_the_code(store: Store) -> None:
    table = Invitations(store.engine)
    token = a_set(store)
    _, first = table.request(SLUG, token, ADDRESS, SITE, NOW)

    second_request, second = table.request(SLUG, token, "other@mail.example.net", SITE, NOW)

    assert table.confirm(first, NOW) is None
    assert second_request.masked == "o***@mail.example.net"
    assert table.confirm(second, NOW) is not None


def test_the_uid_is_stable_per_address_and_session_and_unlike_any_other(store: Store) -> None:
    table = Invitations(store.engine)

    uids = [
        table.uid(ADDRESS, SLUG, "s1"),
        table.uid(ADDRESS.upper(), SLUG, "s1"),
        table.uid(ADDRESS, SLUG, "s2"),
        table.uid("other@mail.example.net", SLUG, "s1"),
    ]

    assert uids[0] == uids[1]
    assert len(set(uids)) == 3
    # Only a digest before the domain: nothing of the address can show through (a hex digest
    # may by chance hold the letters of a name, so looking for the name would be flaky).
    assert re.fullmatch(r"[0-9a-f]{32}@invite\.confcal", uids[0])


def test_an_expired_pick_set_takes_its_invitation_with_it(store: Store) -> None:
    table = Invitations(store.engine)
    token = a_set(store)
    asked, code = table.request(SLUG, token, ADDRESS, SITE, NOW)
    table.confirm(code, NOW)

    purged = PickStore(store.engine).purge(NOW + timedelta(days=400))
    dropped = table.drop_orphans()

    assert (purged, dropped, table.get(asked.id)) == (1, 1, None)


def test_a_confirmation_never_given_is_dropped_after_its_24_hours(store: Store) -> None:
    table = Invitations(store.engine)
    asked, _ = table.request(SLUG, a_set(store), ADDRESS, SITE, NOW)

    early = table.drop_expired(NOW + timedelta(hours=23))
    late = table.drop_expired(NOW + timedelta(hours=24))

    assert (early, late, table.get(asked.id)) == (0, 1, None)


def test_a_confirmed_invitation_is_due_until_brought_up_to_date(store: Store) -> None:
    table = Invitations(store.engine)
    token = a_set(store)
    asked, code = table.request(SLUG, token, ADDRESS, SITE, NOW)
    before = table.due(conference=SLUG)
    table.confirm(code, NOW)
    after = table.due(conference=SLUG)

    table.claim(asked.id, "me", NOW, timedelta(minutes=1))
    picked = PickStore(store.engine).get(token)
    assert picked is not None
    table.finish(asked.id, "me", NOW, synced_version=table.latest_version(SLUG), synced_picks=picked.updated)

    assert (before, after, table.due(conference=SLUG)) == ([], [asked.id], [])


def test_rotating_keys_reencrypts_the_address_for_the_new_key_alone(store: Store) -> None:
    old, new = new_key().encode(), new_key().encode()
    token = a_set(store)
    asked, _ = Invitations(store.engine, cipher=lambda: Cipher([old])).request(SLUG, token, ADDRESS, SITE, NOW)

    rotated = Invitations(store.engine, cipher=lambda: Cipher([new, old])).rotate_keys()

    assert rotated == 1
    assert Invitations(store.engine, cipher=lambda: Cipher([new])).address(asked.id) == ADDRESS
    with pytest.raises(SecretUndecryptable):
        Invitations(store.engine, cipher=lambda: Cipher([old])).address(asked.id)


def test_the_sweep_finds_an_invitation_never_queued_at_once_and_a_queued_one_after_two_minutes(store: Store) -> None:
    table = Invitations(store.engine)
    asked, code = table.request(SLUG, a_set(store), ADDRESS, SITE, NOW)
    table.confirm(code, NOW)
    never_queued = table.due(overdue=(NOW, NOW - timedelta(minutes=2)))

    table.to_queue([asked.id], NOW)
    later = NOW + timedelta(minutes=1)
    on_its_way = table.due(overdue=(later, later - timedelta(minutes=2)))
    much_later = NOW + timedelta(minutes=3)
    lost = table.due(overdue=(much_later, much_later - timedelta(minutes=2)))

    assert (never_queued, on_its_way, lost) == ([asked.id], [], [asked.id])


def test_an_invitation_with_a_job_on_its_way_is_not_queued_again(store: Store) -> None:
    table = Invitations(store.engine)
    asked, code = table.request(SLUG, a_set(store), ADDRESS, SITE, NOW)
    table.confirm(code, NOW)

    first = table.to_queue([asked.id], NOW)
    second = table.to_queue([asked.id], NOW + timedelta(seconds=5))
    lost = table.to_queue([asked.id], NOW + timedelta(minutes=3), lost=True)

    assert (first, second, lost) == ([asked.id], [], [asked.id])
