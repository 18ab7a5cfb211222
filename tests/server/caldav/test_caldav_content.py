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
