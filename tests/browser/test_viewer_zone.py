"""The viewer's own zone on the schedule page, in a real browser: a viewer in New York sees each
session's time in New York next to the conference's (11:00 CEST is 05:00 in America/New_York on
7 April 2026), computed from the instant, never from the conference's wall time.

Expected times come from the API's instants converted with Python's zoneinfo, not from the page.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import pytest

from tests.helpers.browser_helpers import Visit, api_sessions, new_visit
from tests.helpers.serve_process import Running

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

CARD = "[data-session-id]"
VIEWER_TIME = ".local-time"  # the element that shows the viewer's own time
NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def new_york(browser: Browser, server: Running) -> Iterator[Visit]:
    visit: Visit = new_visit(browser, server, timezone_id="America/New_York", locale="en-US")
    visit.open()
    yield visit
    visit.context.close()
    assert visit.console_errors == []
    assert visit.foreign_requests() == []


def viewer_time(visit: Visit, session_id: str) -> str:
    text: str = visit.page.locator(f'{CARD}[data-session-id="{session_id}"] {VIEWER_TIME}').inner_text()
    return text


def test_eleven_cest_is_five_in_new_york(new_york: Visit, server: Running) -> None:
    eleven = next(
        s
        for s in api_sessions(server)
        if (s["start"], s["end"]) == ("2026-04-07T11:00:00+02:00", "2026-04-07T11:10:00+02:00")
    )

    # en-US writes 05:00 as "5:00 AM"; the range shares its "AM" and zone name.
    assert viewer_time(new_york, eleven["id"]) == "5:00 – 5:10 AM EDT your time"


def en_us_range(start: datetime, end: datetime) -> str:
    """How en-US writes a time range on one day: "5:00 – 5:10 AM EDT", "11:50 AM – 12:10 PM EDT"."""

    def clock(t: datetime) -> str:
        return f"{t.hour % 12 or 12}:{t:%M}"

    def period(t: datetime) -> str:
        return "AM" if t.hour < 12 else "PM"

    if period(start) == period(end):
        return f"{clock(start)} – {clock(end)} {period(end)} {end.tzname()}"
    return f"{clock(start)} {period(start)} – {clock(end)} {period(end)} {end.tzname()}"


def test_every_card_shows_its_own_instant_in_new_york(new_york: Visit, server: Running) -> None:
    expected = {
        s["id"]: en_us_range(
            datetime.fromisoformat(s["start"]).astimezone(NEW_YORK),
            datetime.fromisoformat(s["end"]).astimezone(NEW_YORK),
        )
        + " your time"
        for s in api_sessions(server)
    }

    shown = {session_id: viewer_time(new_york, session_id) for session_id in expected}

    assert len(shown) == 28
    assert shown == expected
