"""Content comparison: what decides whether an event at our name is exactly what we would write
(adopted, no PUT) or someone's edit (left alone). Pure, no I/O."""

from __future__ import annotations

from server.caldav.content import same_event, uids
from tests.helpers.caldav_events import ALARM, with_alarm

EVENT = (
    b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//confcal//test//EN\r\n"
    b"BEGIN:VEVENT\r\nUID:a@x\r\nDTSTAMP:20260301T000000Z\r\n"
    b"DTSTART;TZID=Europe/Paris;VALUE=DATE-TIME:20260407T090000\r\n"
    b"DTEND;TZID=Europe/Paris:20260407T092500\r\nSUMMARY:Talk\r\n"
    b"END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def test_parameters_in_another_order_are_the_same_event() -> None:
    reordered = EVENT.replace(b"TZID=Europe/Paris;VALUE=DATE-TIME", b"VALUE=DATE-TIME;TZID=Europe/Paris")

    assert same_event(EVENT, reordered) is True


def test_the_same_wall_clock_time_in_another_zone_is_another_event() -> None:
    # Only the TZID parameter differs: the values read 09:00 in both.
    berlin = EVENT.replace(b"TZID=Europe/Paris", b"TZID=America/New_York")

    assert same_event(EVENT, berlin) is False


def test_an_alarm_the_owner_added_is_an_edit() -> None:
    assert same_event(EVENT, with_alarm(EVENT)) is False
    assert same_event(with_alarm(EVENT), with_alarm(EVENT)) is True


def test_an_alarm_the_owner_changed_is_an_edit() -> None:
    earlier = ALARM.replace(b"TRIGGER:-PT10M", b"TRIGGER:-PT30M")

    assert same_event(with_alarm(EVENT), with_alarm(EVENT, earlier)) is False


def test_the_uids_of_a_body_are_its_events_not_its_alarms() -> None:
    assert uids(with_alarm(EVENT)) == frozenset({"a@x"})


def test_a_body_that_does_not_parse_has_no_uids_and_is_no_event() -> None:
    assert uids(b"not a calendar") == frozenset()
    assert same_event(b"not a calendar", b"not a calendar") is False


OURS_WITH_CATEGORIES = EVENT.replace(
    b"SUMMARY:Talk\r\n", b"SUMMARY:Talk\r\nCATEGORIES:Compilers,talk\r\nSEQUENCE:0\r\n"
)


def test_categories_split_into_one_line_per_value_are_the_same_event() -> None:
    # Cyrus stores CATEGORIES:a,b as CATEGORIES:a and CATEGORIES:b.
    split = OURS_WITH_CATEGORIES.replace(b"CATEGORIES:Compilers,talk", b"CATEGORIES:Compilers\r\nCATEGORIES:talk")

    assert same_event(OURS_WITH_CATEGORIES, split) is True


def test_a_category_the_owner_changed_is_an_edit() -> None:
    changed = OURS_WITH_CATEGORIES.replace(b"CATEGORIES:Compilers,talk", b"CATEGORIES:Compilers\r\nCATEGORIES:keynote")

    assert same_event(OURS_WITH_CATEGORIES, changed) is False


def test_properties_a_server_adds_at_their_default_or_maintains_are_the_same_event() -> None:
    # SOGo adds CLASS:PUBLIC; other stores TRANSP:OPAQUE, CREATED and LAST-MODIFIED; sequence 0 is
    # the default; parameter names and enumerated values in another letter case; folded lines.
    stored = (
        OURS_WITH_CATEGORIES.replace(b"SEQUENCE:0\r\n", b"")
        .replace(b"TZID=Europe/Paris;VALUE=DATE-TIME", b"value=date-time;tzid=Europe/Paris")
        .replace(
            b"END:VEVENT",
            b"CLASS:PUBLIC\r\nTRANSP:OPAQUE\r\nCREATED:20260402T101010Z\r\nLAST-MODIFIED:20260402T101010Z\r\nEND:VEVENT",
        )
        .replace(b"SUMMARY:Talk\r\n", b"SUMMARY:Ta\r\n lk\r\n")
    )

    assert same_event(OURS_WITH_CATEGORIES, stored) is True


def test_a_property_set_away_from_its_default_is_an_edit() -> None:
    private = EVENT.replace(b"END:VEVENT", b"CLASS:PRIVATE\r\nEND:VEVENT")
    free = EVENT.replace(b"END:VEVENT", b"TRANSP:TRANSPARENT\r\nEND:VEVENT")

    assert (same_event(EVENT, private), same_event(EVENT, free)) == (False, False)
