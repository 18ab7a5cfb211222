from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import Calendar

from feeds.ical import EventCache, render_calendar, render_session
from feeds.ical.calendar import header_calendar
from feeds.ical.text import Text
from feeds.ical.timezone import vtimezone_bytes
from feeds.model import Conference, Session, Status

MakeSession = Callable[..., Session]  # the conftest fixture's type
TITLE = "PyTorch Conference Europe 2026 - Room: Master Stage"


def _vevents(data: bytes) -> list[bytes]:
    return re.findall(rb"BEGIN:VEVENT\r\n.*?END:VEVENT\r\n", data, re.DOTALL)


def test_calendar_header_says_what_the_feed_is(conference: Conference, make_session: MakeSession) -> None:
    data = render_calendar(conference, [make_session()], title=TITLE, refresh=timedelta(minutes=30))

    header = data.decode().split("BEGIN:VTIMEZONE")[0].split("\r\n")
    assert header == [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//confcal//Conference schedule feeds//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"NAME:{TITLE}",
        f"X-WR-CALNAME:{TITLE}",
        "REFRESH-INTERVAL;VALUE=DURATION:PT30M",
        "X-PUBLISHED-TTL:PT30M",
        "X-WR-TIMEZONE:Europe/Paris",
        "",
    ]


def test_one_vtimezone_and_events_in_given_order(conference: Conference, make_session: MakeSession) -> None:
    sessions = [make_session(id="b"), make_session(id="a")]

    cal = Calendar.from_ical(render_calendar(conference, sessions, title=TITLE))

    assert [str(tz["TZID"]) for tz in cal.walk("VTIMEZONE")] == ["Europe/Paris"]
    assert [str(e["UID"]).split("@")[0] for e in cal.walk("VEVENT")] == ["b", "a"]


def test_empty_feed_is_a_valid_calendar_without_timezone(
    conference: Conference,
) -> None:
    cal = Calendar.from_ical(render_calendar(conference, [], title=TITLE))

    assert (cal.walk("VTIMEZONE"), cal.walk("VEVENT")) == ([], [])


def test_same_input_gives_same_bytes(conference: Conference, make_session: MakeSession) -> None:
    sessions = [make_session(id=str(n)) for n in range(3)]

    first = render_calendar(conference, sessions, title=TITLE)
    second = render_calendar(conference, sessions, title=TITLE, cache=EventCache())

    assert first == second


def test_cache_renders_each_revision_once(conference: Conference, make_session: MakeSession) -> None:
    cache = EventCache()
    sessions = [make_session(id=str(n)) for n in range(4)]
    render_calendar(conference, sessions, title=TITLE, cache=cache)
    render_calendar(conference, sessions[:2], title="other feed", cache=cache)

    render_calendar(
        conference,
        [*sessions[:3], make_session(id="3", revision=2)],
        title=TITLE,
        cache=cache,
    )

    assert cache.renders == 5


def test_cache_re_renders_content_changed_without_revision(conference: Conference, make_session: MakeSession) -> None:
    cache = EventCache()
    render_calendar(conference, [make_session()], title=TITLE, cache=cache)

    data = render_calendar(conference, [make_session(title="Renamed")], title=TITLE, cache=cache)

    assert str(Calendar.from_ical(data).walk("VEVENT")[0]["SUMMARY"]) == "Renamed"


def test_cache_is_bounded(conference: Conference, make_session: MakeSession) -> None:
    cache = EventCache(max_entries=2)

    render_calendar(
        conference,
        [make_session(id=str(n)) for n in range(5)],
        title=TITLE,
        cache=cache,
    )

    assert len(cache) == 2


def test_cache_drops_the_least_recently_used_event(conference: Conference, make_session: MakeSession) -> None:
    a, b, c = (make_session(id=name) for name in "abc")
    cache = EventCache(max_entries=2)
    render_calendar(conference, [a, b], title=TITLE, cache=cache)
    render_calendar(conference, [a], title=TITLE, cache=cache)  # a used again: b is now the oldest

    render_calendar(conference, [c], title=TITLE, cache=cache)
    before = cache.renders
    render_calendar(conference, [a], title=TITLE, cache=cache)
    kept_a = cache.renders - before
    render_calendar(conference, [b], title=TITLE, cache=cache)

    assert (kept_a, cache.renders - before) == (0, 1)


def test_a_session_download_is_a_published_calendar_like_the_feed(
    conference: Conference, make_session: MakeSession
) -> None:
    session = make_session()
    cache = EventCache()

    download = render_session(conference, session, base_url="https://cal.example", cache=cache)
    cached = len(cache)
    feed = render_calendar(conference, [session], title=TITLE, base_url="https://cal.example", cache=cache)

    assert download.split(b"\r\n")[4] == b"METHOD:PUBLISH"
    assert _vevents(download) == _vevents(feed)
    assert (cached, cache.renders) == (1, 1)  # the download filled the cache the feed then used


def test_two_conferences_in_one_zone_carry_byte_identical_vtimezones(
    conference: Conference, make_session: MakeSession, new_york_machine: None
) -> None:
    # Clients cache a zone by its TZID: a definition that depended on the feed's dates would let
    # the first feed read decide how every later one is read.
    spring = dataclasses.replace(conference, start_date=date(2026, 3, 31), end_date=date(2026, 3, 31))
    autumn = dataclasses.replace(conference, name="Autumn", start_date=date(2031, 10, 29), end_date=date(2031, 10, 30))
    early = make_session(
        id="early", start=datetime(2026, 3, 30, 22, 30, tzinfo=UTC), end=datetime(2026, 3, 30, 23, tzinfo=UTC)
    )
    late = make_session(
        id="late", start=datetime(2031, 10, 29, 9, 30, tzinfo=UTC), end=datetime(2031, 10, 29, 10, 30, tzinfo=UTC)
    )

    zones = [
        re.findall(rb"BEGIN:VTIMEZONE\r\n.*?END:VTIMEZONE\r\n", render_calendar(c, [s], title=TITLE), re.DOTALL)
        for c, s in ((spring, early), (autumn, late))
    ]

    assert zones == [[vtimezone_bytes("Europe/Paris")], [vtimezone_bytes("Europe/Paris")]]


@pytest.mark.parametrize("cached", [False, True], ids=["uncached", "cached"])
def test_each_feed_gets_the_events_for_its_own_base_url_and_reminder(
    conference: Conference, make_session: MakeSession, cached: bool
) -> None:
    session = make_session()
    cache = EventCache() if cached else None  # a fresh one: a cache made at collection would be shared

    plain = render_calendar(conference, [session], title=TITLE, cache=cache)
    linked = render_calendar(conference, [session], title=TITLE, base_url="https://cal.example", cache=cache)
    reminded = render_calendar(conference, [session], title=TITLE, alarm=10, cache=cache)

    assert [b"URL:https://cal.example/#session-torchjd" in d for d in (plain, linked, reminded)] == [False, True, False]
    assert [d.count(b"BEGIN:VALARM") for d in (plain, linked, reminded)] == [0, 0, 1]


def test_the_cache_re_renders_an_event_whose_conference_changed(
    conference: Conference, make_session: MakeSession
) -> None:
    cache = EventCache()
    render_calendar(conference, [make_session()], title=TITLE, cache=cache)
    moved = dataclasses.replace(conference, venue="Lyon")

    data = render_calendar(moved, [make_session()], title=TITLE, cache=cache)

    assert str(Calendar.from_ical(data).walk("VEVENT")[0]["LOCATION"]) == "Master Stage, Lyon, Paris, France"


def test_schedule_change_touches_only_the_changed_events(conference: Conference, make_session: MakeSession) -> None:
    # Arrange: five sessions; then one moved, one removed (cancelled), one retitled.
    before = [make_session(id=f"s{n}", start=make_session().start + timedelta(hours=n),
                           end=make_session().end + timedelta(hours=n)) for n in range(5)]  # fmt: skip
    moved = make_session(id="s1", start=before[1].start + timedelta(minutes=30),
                         end=before[1].end + timedelta(minutes=30), revision=2)  # fmt: skip
    removed = make_session(
        id="s2",
        start=before[2].start,
        end=before[2].end,
        revision=2,
        status=Status.CANCELLED,
    )
    retitled = make_session(id="s3", start=before[3].start, end=before[3].end, revision=2, title="New title")
    after = [before[0], moved, removed, retitled, before[4]]
    cache = EventCache()

    # Act
    old = _vevents(render_calendar(conference, before, title=TITLE, cache=cache))
    new = _vevents(render_calendar(conference, after, title=TITLE, cache=cache))

    # Assert
    assert [o == n for o, n in zip(old, new, strict=True)] == [
        True,
        False,
        False,
        False,
        True,
    ]
    parsed = [Calendar.from_ical(b"BEGIN:VCALENDAR\r\n" + n + b"END:VCALENDAR\r\n").walk("VEVENT")[0] for n in new]
    assert [e["SEQUENCE"] for e in parsed] == [1, 2, 2, 2, 1]
    assert [str(e["STATUS"]) for e in parsed] == [
        "CONFIRMED",
        "CONFIRMED",
        "CANCELLED",
        "CONFIRMED",
        "CONFIRMED",
    ]


def test_no_vtimezone_when_no_event_refers_to_one(make_session: MakeSession) -> None:
    utc_conference = Conference("UTC Conf", "UTC", date(2026, 4, 7), date(2026, 4, 7))

    cal = Calendar.from_ical(render_calendar(utc_conference, [make_session()], title=TITLE))

    assert (cal.walk("VTIMEZONE"), len(cal.walk("VEVENT"))) == ([], 1)


def test_long_hostile_title_is_folded_and_escaped_as_icalendar_does(
    conference: Conference, make_session: MakeSession
) -> None:
    # A title long enough to fold, with escapes and multi-byte characters at the fold points.
    title = "Ünïcödé; talk, with\\backslashes – 漢字 😀 " * 3
    expected = Calendar()
    expected.add("name", Text(title))
    expected.add("x-wr-calname", Text(title))
    wanted = [line for line in expected.to_ical().split(b"\r\n") if line.startswith((b"NAME", b"X-WR-CALNAME", b" "))]

    data = render_calendar(conference, [make_session()], title=title)

    header = data.split(b"BEGIN:VTIMEZONE")[0].split(b"\r\n")
    assert [line for line in header if line.startswith((b"NAME", b"X-WR-CALNAME", b" "))] == wanted


def _icalendar_header(title: str, tzid: str, refresh: timedelta, method: str | None) -> bytes:
    """The header icalendar itself writes for these properties, whole (no cut, no cache)."""
    data: bytes = header_calendar(title, tzid, refresh, method).to_ical()
    return data.removesuffix(b"END:VCALENDAR\r\n")


# Titles that fold, with escapes and multi-byte characters anywhere (at the fold points too).
TITLES = st.lists(
    st.one_of(
        st.sampled_from([",", ";", "\\", "^", "\n", "\r", "é", "😀", "漢", "\x01", "x" * 40]),
        st.characters(exclude_categories=["Cs"]),
    ),
    max_size=120,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(
    calendars=st.lists(
        st.tuples(
            TITLES,
            st.sampled_from(["Europe/Paris", "America/New_York", "UTC", "Asia/Kolkata"]),
            st.sampled_from([timedelta(hours=1), timedelta(minutes=30)]),
            st.sampled_from(["PUBLISH", None]),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_the_cached_header_is_icalendars_for_exactly_its_title_zone_refresh_and_method(
    calendars: list[tuple[str, str, timedelta, str | None]],
) -> None:
    """Headers are cached across calls (this test's examples share the caches): a key missing a
    part would give one calendar another's zone, refresh, method or title."""
    made = [
        render_calendar(
            Conference("C", tzid, date(2026, 4, 7), date(2026, 4, 7)), [], title=title, refresh=refresh, method=method
        )
        for title, tzid, refresh, method in calendars
    ]

    assert made == [_icalendar_header(*calendar) + b"END:VCALENDAR\r\n" for calendar in calendars]


def test_events_gives_each_sessions_bytes_in_order_rendering_only_those_not_held(
    conference: Conference, make_session: MakeSession
) -> None:
    a, b, c = (make_session(id=name, title=f"Talk {name}") for name in "abc")
    cache = EventCache()
    cache.get(conference, b, None, lambda: b"held b")

    events = cache.events(conference, [a, b, c], None, lambda s: f"made {s.id}".encode())

    assert (events, cache.renders) == ([b"made a", b"held b", b"made c"], 3)
