"""The Storage contract (server/caldav/storage.py), one test class run against the in-memory twin,
real Radicale, Xandikos and DAViCal: the twin may only stand in for a server where both behave alike.

sabre/dav, Cyrus and SOGo (../shared/caldav-servers) run behind tests/helpers/cue_proxy.py, which
gives them the same cues and counts; each test's calendar is deleted after it, because Cyrus holds
a UID once per account. SOGo ignores the preconditions listed in NOT_ENFORCED.

DAViCal does not enforce CalDAV's no-uid-conflict precondition (RFC 4791 section 5.3.2.1): it
stores a second object with a UID the calendar already holds. The contract still holds for a
create, because DavStorage looks the UID up first (calendar-query); an update that would change
a resource's UID to one held elsewhere is not checked (the pusher never changes the UID at a
name), so that test is marked as what DAViCal does not enforce.

On the real servers these tests run the code that maps the wire's 412/404/409/403 answers into the
contract's errors (server/caldav/dav.py), and they fail if a write loses its precondition: a PUT
without If-None-Match overwrites a taken name, one without If-Match an edit made since we listed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.caldav.errors import ItemNotFound, PreconditionFailed, TransientError, UidConflict
from tests.helpers.caldav_events import OTHER, OURS
from tests.helpers.cue_proxy import cueing
from tests.helpers.push_helpers import (
    Backend,
    DavBackend,
    MemoryBackend,
    drop_etag,
    edited,
    lose_answer,
    owner_put,
    summary_of,
    weak_etag,
)

NOT_ENFORCED = {
    "davical": {"test_an_update_to_a_uid_held_elsewhere_is_a_uid_conflict"},
    # sabre/dav answers a DELETE with If-Match on a deleted name 412, not 404 (RFC 7232 section
    # 3.1 allows it); the executor reads the name then, finds nothing and counts it deleted.
    "sabre": {
        "test_an_update_to_a_uid_held_elsewhere_is_a_uid_conflict",
        "test_delete_and_get_of_a_missing_item_are_not_found",
    },
    # SOGo 5.8 ignores If-None-Match: * on PUT and If-Match on DELETE (../shared/caldav-servers/
    # README.md); DavStorage checks each object itself there, so only this one is left.
    "sogo": {"test_an_update_to_a_uid_held_elsewhere_is_a_uid_conflict"},
}
SHARED = ("sabre", "cyrus", "sogo")


@pytest.fixture(params=["memory", "radicale", "xandikos", "davical", *SHARED])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """The conftest's backends plus DAViCal, sabre/dav, Cyrus and SOGo (the last three behind the
    cueing proxy); a test a server does not enforce is a strict xfail, so it turns red the day
    the server (or DavStorage) starts enforcing it."""
    if request.function.__name__ in NOT_ENFORCED.get(request.param, set()):
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"{request.param} does not enforce this"))
    made: Backend
    if request.param == "memory":
        made = MemoryBackend()
    elif request.param in SHARED:
        made = DavBackend(cueing(request, request.param))
    else:
        made = DavBackend(request.getfixturevalue(request.param))
    yield made
    made.close()
    if request.param in SHARED:
        assert isinstance(made, DavBackend)
        # Cyrus holds a UID once per account, not per calendar: the next test's events need
        # this calendar gone.
        cueing(request, request.param).request("DELETE", made.url)


class TestStorageContract:
    def test_create_returns_the_etag_the_listing_shows_and_get_returns_body_and_etag(self, backend: Backend) -> None:
        etag = backend.storage.create("talk-1.ics", OURS)

        listing = backend.storage.list()
        item = backend.storage.get("talk-1.ics")

        assert listing == {"talk-1.ics": etag}
        assert (summary_of(item.ics), item.etag) == ("Talk one", etag)

    def test_update_and_delete_with_the_current_etag_take_effect(self, backend: Backend) -> None:
        first = backend.storage.create("talk-1.ics", OURS)

        second = backend.storage.update("talk-1.ics", edited(OURS, "Talk one, moved"), first)
        after_update = backend.storage.list()
        backend.storage.delete("talk-1.ics", second)

        assert second != first
        assert after_update == {"talk-1.ics": second}
        assert backend.storage.list() == {}

    def test_create_on_a_taken_name_fails_its_precondition_and_keeps_what_is_there(self, backend: Backend) -> None:
        backend.owner_put("talk-1.ics", OTHER)

        with pytest.raises(PreconditionFailed):
            backend.storage.create("talk-1.ics", OURS)

        assert summary_of(backend.contents()["talk-1.ics"]) == "Talk two"

    def test_update_with_a_stale_etag_fails_its_precondition_and_keeps_the_owner_edit(self, backend: Backend) -> None:
        stale = backend.storage.create("talk-1.ics", OURS)
        backend.owner_put("talk-1.ics", edited(OURS, "Mine now"))

        with pytest.raises(PreconditionFailed):
            backend.storage.update("talk-1.ics", edited(OURS, "Talk one, moved"), stale)

        assert summary_of(backend.contents()["talk-1.ics"]) == "Mine now"

    def test_delete_with_a_stale_etag_fails_its_precondition_and_keeps_the_owner_edit(self, backend: Backend) -> None:
        stale = backend.storage.create("talk-1.ics", OURS)
        backend.owner_put("talk-1.ics", edited(OURS, "Mine now"))

        with pytest.raises(PreconditionFailed):
            backend.storage.delete("talk-1.ics", stale)

        assert summary_of(backend.contents()["talk-1.ics"]) == "Mine now"

    def test_update_of_a_missing_item_is_not_found_and_creates_nothing(self, backend: Backend) -> None:
        etag = backend.storage.create("talk-1.ics", OURS)
        backend.owner_delete("talk-1.ics")

        with pytest.raises(ItemNotFound):
            backend.storage.update("talk-1.ics", edited(OURS, "Talk one, moved"), etag)

        assert backend.contents() == {}

    def test_delete_and_get_of_a_missing_item_are_not_found(self, backend: Backend) -> None:
        etag = backend.storage.create("talk-1.ics", OURS)
        backend.owner_delete("talk-1.ics")

        with pytest.raises(ItemNotFound):
            backend.storage.delete("talk-1.ics", etag)
        with pytest.raises(ItemNotFound):
            backend.storage.get("talk-1.ics")

    def test_the_same_uid_under_another_name_is_a_uid_conflict(self, backend: Backend) -> None:
        backend.owner_put("imported.ics", OURS)

        with pytest.raises(UidConflict):
            backend.storage.create("talk-1.ics", OURS)

        assert sorted(backend.contents()) == ["imported.ics"]

    def test_an_update_to_a_uid_held_elsewhere_is_a_uid_conflict(self, backend: Backend) -> None:
        backend.owner_put("imported.ics", OURS)
        etag = backend.storage.create("talk-2.ics", OTHER)

        with pytest.raises(UidConflict):
            backend.storage.update("talk-2.ics", OURS, etag)

        assert summary_of(backend.contents()["talk-2.ics"]) == "Talk two"

    def test_an_owner_edit_between_listing_and_put_fails_the_update(self, backend: Backend) -> None:
        backend.storage.create("talk-1.ics", OURS)
        listed = backend.storage.list()["talk-1.ics"]
        backend.cue(owner_put("PUT", "talk-1.ics", edited(OURS, "Mine now")))

        with pytest.raises(PreconditionFailed):
            backend.storage.update("talk-1.ics", edited(OURS, "Talk one, moved"), listed)

        assert summary_of(backend.contents()["talk-1.ics"]) == "Mine now"

    def test_a_lost_answer_is_a_transient_error_but_the_write_took_effect(self, backend: Backend) -> None:
        backend.cue(lose_answer("PUT", "talk-1.ics"))

        with pytest.raises(TransientError) as raised:
            backend.storage.create("talk-1.ics", OURS)

        assert raised.value.unreachable is True
        assert summary_of(backend.contents()["talk-1.ics"]) == "Talk one"
        with pytest.raises(PreconditionFailed):  # the retry's precondition sees the first write
            backend.storage.create("talk-1.ics", OURS)

    def test_writes_answered_with_a_weak_or_no_etag_return_the_stored_one(self, backend: Backend) -> None:
        # A server that altered the body must not return a strong ETag (RFC 4791 section 5.3.4):
        # a weak one is no good for If-Match, so the storage asks for the stored ETag instead.
        backend.cue(weak_etag("PUT", "talk-1.ics"))
        created = backend.storage.create("talk-1.ics", OURS)
        listed_after_create = backend.storage.list()
        backend.cue(drop_etag("PUT", "talk-1.ics"))

        updated = backend.storage.update("talk-1.ics", edited(OURS, "Talk one, moved"), created)

        assert listed_after_create == {"talk-1.ics": created}
        assert backend.storage.list() == {"talk-1.ics": updated}
        assert not created.startswith("W/")

    def test_a_get_answered_without_an_etag_returns_the_stored_one(self, backend: Backend) -> None:
        etag = backend.storage.create("talk-1.ics", OURS)
        backend.cue(drop_etag("GET", "talk-1.ics"))

        item = backend.storage.get("talk-1.ics")

        assert (summary_of(item.ics), item.etag) == ("Talk one", etag)

    def test_each_call_is_counted_as_its_one_request(self, backend: Backend) -> None:
        # The sync tests' "no writes happened" checks read these counts; a twin that miscounted a
        # method would make them pass whatever the pusher sent. PROPFIND and REPORT are left out:
        # DavStorage also sends them to look up ETags and UIDs.
        before = backend.requests()

        created = backend.storage.create("talk-1.ics", OURS)
        backend.storage.get("talk-1.ics")
        updated = backend.storage.update("talk-1.ics", edited(OURS, "Talk one, moved"), created)
        backend.storage.delete("talk-1.ics", updated)

        counted = backend.requests() - before
        # Where the server ignores preconditions (SOGo), the update and the delete each read the
        # object first.
        checks = 2 if getattr(backend.storage, "checks_writes", False) else 0
        assert {m: counted[m] for m in ("GET", "PUT", "DELETE")} == {"GET": 1 + checks, "PUT": 2, "DELETE": 1}
