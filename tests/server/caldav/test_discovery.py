"""The discovery parsers on the answers sabre/dav, Cyrus and SOGo really gave (captured with curl
into tests/fixtures/caldav_discovery/), and the choice of a calendar by name."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml import ElementTree as SafeXml

from server.caldav.discovery import Calendar, _refuse_downgrade, choose, parse_calendars, parse_home, parse_principal
from server.caldav.errors import NoCalDAV, NoSuchCalendar
from server.caldav.target import server_address

ANSWERS = Path(__file__).parents[2] / "fixtures" / "caldav_discovery"
ROOT = "http://127.0.0.1:8000"


def answer(name: str) -> Element:
    tree: Element = SafeXml.fromstring((ANSWERS / name).read_bytes())
    return tree


@pytest.mark.parametrize(
    ("kind", "context", "expected"),
    [
        ("sabre", "/remote.php/dav/", "/remote.php/dav/principals/users/alice/"),
        ("cyrus", "/dav/calendars", "/dav/principals/user/alice/"),
        ("sogo", "/SOGo/dav/", "/SOGo/dav/alice/"),
    ],
)
def test_the_principal_is_read_as_an_absolute_url(kind: str, context: str, expected: str) -> None:
    tree = answer(f"{kind}-principal.xml")

    principal = parse_principal(tree, ROOT + context)

    assert principal == ROOT + expected


@pytest.mark.parametrize(
    ("kind", "principal", "expected"),
    [
        ("cyrus", "/dav/principals/user/alice/", "/dav/calendars/user/alice/"),
        ("sogo", "/SOGo/dav/alice/", "/SOGo/dav/alice/Calendar/"),
    ],
)
def test_the_calendar_home_is_read_as_an_absolute_url(kind: str, principal: str, expected: str) -> None:
    tree = answer(f"{kind}-home.xml")

    home = parse_home(tree, ROOT + principal)

    assert home == ROOT + expected


def test_a_home_listed_under_a_404_propstat_is_no_home() -> None:
    # sabre/dav's stock plugin names no home for a principal at principals/users/NAME.
    tree = answer("sabre-home.xml")

    home = parse_home(tree, ROOT + "/remote.php/dav/principals/users/alice/")

    assert home is None


def test_no_answer_names_no_principal() -> None:
    assert parse_principal(None, ROOT + "/") is None


def test_sabre_lists_its_two_calendars_and_not_the_inbox_and_outbox() -> None:
    tree = answer("sabre-calendars.xml")

    calendars = parse_calendars(tree, ROOT + "/remote.php/dav/calendars/alice/")

    home = ROOT + "/remote.php/dav/calendars/alice/"
    assert calendars == (
        Calendar(home + "conf/", "Conference", None, True),
        Calendar(home + "personal/", "Personal", None, True),
    )


def test_cyrus_lists_its_default_calendar_too() -> None:
    tree = answer("cyrus-calendars.xml")

    calendars = parse_calendars(tree, ROOT + "/dav/calendars/user/alice/")

    home = ROOT + "/dav/calendars/user/alice/"
    assert calendars == (
        Calendar(home + "Default/", "personal", None, True),
        Calendar(home + "conf/", "conf", None, True),
        Calendar(home + "personal/", "personal", None, True),
    )


def test_sogo_lists_its_calendars_with_their_colour_and_not_its_ics_files() -> None:
    tree = answer("sogo-calendars.xml")

    calendars = parse_calendars(tree, ROOT + "/SOGo/dav/alice/Calendar/")

    home = ROOT + "/SOGo/dav/alice/Calendar/"
    assert calendars == (
        Calendar(home + "personal/", "Personal Calendar", "#AAAAAAFF", True),
        Calendar(home + "conf/", "conf", "#AAAAAAFF", True),
    )


def _listing(components: str) -> Element:
    tree: Element = SafeXml.fromstring(
        '<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:response>'
        "<d:href>/cal/tasks</d:href><d:propstat><d:prop>"
        f"<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>{components}"
        "</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>"
    )
    return tree


def test_a_calendar_for_tasks_only_takes_no_events() -> None:
    tree = _listing('<c:supported-calendar-component-set><c:comp name="VTODO"/></c:supported-calendar-component-set>')

    (calendar,) = parse_calendars(tree, ROOT + "/cal/")

    assert calendar == Calendar(ROOT + "/cal/tasks/", None, None, False)


def test_a_calendar_that_names_no_components_takes_events() -> None:
    tree = _listing("")

    (calendar,) = parse_calendars(tree, ROOT + "/cal/")

    assert calendar.events is True
    assert calendar.label == "tasks"


CALENDARS = (
    Calendar(ROOT + "/c/Default/", "personal", None, True),
    Calendar(ROOT + "/c/conf/", "Conference", None, True),
    Calendar(ROOT + "/c/personal/", "personal", None, True),
)


def test_a_calendar_is_chosen_by_display_name() -> None:
    assert choose(CALENDARS, "Conference") == CALENDARS[1]


def test_a_calendar_is_chosen_by_last_path_segment_when_no_display_name_matches() -> None:
    assert choose(CALENDARS, "conf") == CALENDARS[1]


def test_an_unknown_name_is_refused_with_the_names_there_are() -> None:
    with pytest.raises(NoSuchCalendar) as refused:
        choose(CALENDARS, "Work")

    assert str(refused.value) == "no calendar named 'Work'; the account has: 'personal', 'Conference', 'personal'"


def test_a_name_two_calendars_share_is_refused_with_their_urls() -> None:
    with pytest.raises(NoSuchCalendar) as refused:
        choose(CALENDARS, "personal")

    assert str(refused.value) == (
        f"several calendars are named 'personal': {ROOT}/c/Default/, {ROOT}/c/personal/; give --calendar URL"
    )


def test_a_calendar_that_takes_no_events_is_refused() -> None:
    tasks = Calendar(ROOT + "/c/tasks/", "Tasks", None, False)

    with pytest.raises(NoSuchCalendar) as refused:
        choose((*CALENDARS, tasks), "Tasks")

    assert str(refused.value) == f"the calendar 'Tasks' ({ROOT}/c/tasks/) takes no events"


def test_an_https_server_pointing_to_plain_http_is_refused() -> None:
    with pytest.raises(NoCalDAV) as refused:
        _refuse_downgrade("https://cloud.example.org/", "http://cloud.example.org/dav/alice/")

    assert str(refused.value) == (
        "https://cloud.example.org/ points to http://cloud.example.org/dav/alice/, which is not https"
    )


def test_an_https_server_may_point_to_another_https_host() -> None:
    _refuse_downgrade("https://caldav.icloud.com/", "https://p01-caldav.icloud.com/123/principal/")


@pytest.mark.parametrize(
    ("given", "start"),
    [
        ("alice@fastmail.com", "https://fastmail.com/"),
        (" Bob@Cloud.Example.ORG ", "https://cloud.example.org/"),
        ("https://caldav.fastmail.com", "https://caldav.fastmail.com"),
        ("https://user@cloud.example.org/", "https://user@cloud.example.org/"),
    ],
)
def test_an_e_mail_address_starts_discovery_at_its_domains_https_root(given: str, start: str) -> None:
    assert server_address(given) == start
