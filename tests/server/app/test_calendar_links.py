"""The "add to calendar" links give exactly what urllib's urlencode and quote give (they are
built without them for speed): checked over arbitrary text with Hypothesis."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from urllib.parse import quote, urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feeds.model import Conference, Room, Session
from server.links import quote_component
from server.pages.calendar_links import (
    GOOGLE_EVENT,
    OUTLOOK_EVENT,
    OUTLOOK_SUBSCRIBE,
    event_links,
    outlook_subscribe_link,
)

names = st.text(min_size=1).filter(str.strip)
instants = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC))


def urllib_query(query: dict[str, str]) -> str:
    """The links' queries as they were made before: urlencode with quote, empty values left out."""
    return urlencode({k: v for k, v in query.items() if v}, quote_via=quote)


def details(text: str) -> str:
    return text if len(text) <= 300 else text[:299].rstrip() + "…"


@given(st.text())
def test_quote_component_is_urllib_quote_with_nothing_safe(text: str) -> None:
    assert quote_component(text) == quote(text, safe="")


def test_quote_component_refuses_a_lone_surrogate_as_urllib_does() -> None:
    with pytest.raises(UnicodeEncodeError):
        quote("a\ud800", safe="")
    with pytest.raises(UnicodeEncodeError):
        quote_component("a\ud800")


@st.composite
def sessions(draw: st.DrawFn) -> tuple[Conference, Session]:
    conference = Conference(
        draw(names),
        draw(st.sampled_from(["Europe/Paris", "UTC", "America/St_Johns"])),
        date(2026, 4, 7),
        date(2026, 4, 7),
        city=draw(st.none() | st.text()),
    )
    start = draw(instants)
    end = start + draw(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=1)))
    room = draw(st.none() | names.map(Room))
    return conference, Session("s1", draw(st.text()), start, end, room=room, description=draw(st.text()))


@given(sessions(), st.booleans())
def test_event_links_are_urllibs_for_any_session(made: tuple[Conference, Session], with_details: bool) -> None:
    conference, session = made
    where = ", ".join(p for p in (session.room.name if session.room else None, conference.city) if p)
    text = details(session.description) if with_details else ""
    google = {
        "action": "TEMPLATE",
        "text": session.title,
        "dates": f"{session.start:%Y%m%dT%H%M%SZ}/{session.end:%Y%m%dT%H%M%SZ}",
        "details": text,
        "location": where,
        "ctz": conference.timezone,
    }
    outlook = {
        "path": "/calendar/action/compose",
        "rru": "addevent",
        "subject": session.title,
        "startdt": f"{session.start:%Y-%m-%dT%H:%M:%SZ}",
        "enddt": f"{session.end:%Y-%m-%dT%H:%M:%SZ}",
        "body": text,
        "location": where,
    }

    expected = (f"{GOOGLE_EVENT}?{urllib_query(google)}", f"{OUTLOOK_EVENT}?{urllib_query(outlook)}")

    found = event_links(conference, session, details=with_details)

    assert found == expected


@given(st.text(), st.text())
def test_subscribe_link_is_urllibs(url: str, name: str) -> None:
    expected = f"{OUTLOOK_SUBSCRIBE}?{urlencode({'url': url, 'name': name}, quote_via=quote)}"

    assert outlook_subscribe_link(url, name) == expected
