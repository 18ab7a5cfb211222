"""A read on a connection the server closes unanswered is sent once more on a new connection."""

from __future__ import annotations

import pytest

from server.caldav.errors import TransientError
from tests.helpers.caldav_events import OURS
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.push_helpers import DavServer, connect, summary_of


def test_a_get_whose_connection_closed_unanswered_is_sent_again(radicale: DavServer) -> None:
    calendar = radicale.new_calendar()
    with DavProxy(radicale.port) as proxy:
        storage = connect(calendar.replace(f":{radicale.port}/", f":{proxy.port}/"))
        storage.create("talk-1.ics", OURS)
        proxy.close_next_gets(1)

        try:
            item = storage.get("talk-1.ics")
        finally:
            storage.close()

    assert summary_of(item.ics) == "Talk one"


def test_a_get_closed_unanswered_twice_is_a_transient_error(radicale: DavServer) -> None:
    calendar = radicale.new_calendar()
    with DavProxy(radicale.port) as proxy:
        storage = connect(calendar.replace(f":{radicale.port}/", f":{proxy.port}/"))
        storage.create("talk-1.ics", OURS)
        proxy.close_next_gets(2)

        with pytest.raises(TransientError) as raised:
            try:
                storage.get("talk-1.ics")
            finally:
                storage.close()

    assert raised.value.unreachable is True
