"""The in-memory twin's test hooks (faulty_twin.py): failure injection must fail exactly
the requests it was asked to, or the retry and crash tests built on it prove nothing.

The twin's half of the Storage contract is in test_storage_contract.py, next to the real servers.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from server.caldav.errors import TransientError
from tests.helpers.faulty_twin import FaultyTwin
from tests.helpers.push_helpers import edited, event_ics

START = datetime(2026, 4, 7, 9, 0, tzinfo=UTC)
OURS = event_ics("talk-1@pytorch-conference-europe-2026.confcal", "Talk one", START)


def test_fail_next_fails_exactly_that_many_requests_as_unreachable_by_default() -> None:
    memory = FaultyTwin()
    memory.fail_next(2)

    raised = []
    for _ in range(2):
        with pytest.raises(TransientError) as failed:
            memory.list()
        raised.append(failed.value.unreachable)

    assert (raised, memory.list()) == ([True, True], {})


def test_fail_next_as_a_server_error_is_not_unreachable() -> None:
    memory = FaultyTwin()
    memory.fail_next(1, unreachable=False)

    with pytest.raises(TransientError) as failed:
        memory.list()

    assert failed.value.unreachable is False


def test_lost_responses_lose_exactly_that_many_answers_and_keep_every_write() -> None:
    memory = FaultyTwin()
    memory.lose_next_responses(2)

    with pytest.raises(TransientError):
        memory.create("talk-1.ics", OURS)
    etag = memory.items["talk-1.ics"].etag
    with pytest.raises(TransientError):
        memory.update("talk-1.ics", edited(OURS, "Talk one, moved"), etag)
    third = memory.update("talk-1.ics", edited(OURS, "Talk one, again"), memory.items["talk-1.ics"].etag)

    assert memory.list() == {"talk-1.ics": third}


def test_owner_delete_of_a_missing_item_is_a_no_op() -> None:
    # The owner's client deleting what is already gone gets a 404 and moves on; it must not
    # break the test that cues it.
    memory = FaultyTwin()

    memory.owner_delete("talk-1.ics")

    assert memory.list() == {}
