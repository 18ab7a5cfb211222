"""DavStorage (server/caldav/dav.py) on the wire, against real Radicale: how each answer a
CalDAV server may give becomes the contract's error, with a message naming the event, and the
UID search that guards a create. Answers Radicale itself never gives (a 429 with Retry-After, a
refusal with a DAV:error body of another precondition) come from the test wrapper on cue
(dav_server.py `answer`): the request never reaches the server, the client reads them off the
wire like any other answer. The storage contract (test_storage_contract.py) covers the answers
the servers give themselves."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from feeds.ical import uid
from feeds.outbound.urls import public_url
from server.caldav.dav import MAX_ANSWER, DavStorage, calendar_key, check_url
from server.caldav.errors import (
    AccessDenied,
    AddressNotAllowed,
    AuthenticationFailed,
    BadCalendarUrl,
    CalendarNotFound,
    ItemNotFound,
    NotACalendar,
    PreconditionFailed,
    ServerFailed,
    ServerUnreachable,
    TransientError,
    UidConflict,
)
from server.crypto import Password
from tests.helpers.caldav_events import OTHER, OURS, START
from tests.helpers.push_helpers import (
    CONFERENCE,
    PASSWORD,
    USER,
    DavBackend,
    DavServer,
    answer,
    drop_etag,
    event_ics,
    lose_answer,
    make_schedule,
)
from tests.helpers.push_runs import name_of, run_push
from tests.helpers.silent_server import silent_server

ERROR = '<?xml version="1.0"?><D:error xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">{}</D:error>'
NO_UID_CONFLICT = ERROR.format("<C:no-uid-conflict><D:href>/alice/cal/other.ics</D:href></C:no-uid-conflict>")
OTHER_PRECONDITION = ERROR.format("<C:valid-calendar-data/>")
DENIED = "access to {url} denied (403): the account may not use this calendar"


@pytest.fixture
def calendar(radicale: DavServer) -> Iterator[DavBackend]:
    made = DavBackend(radicale)
    yield made
    made.close()


@pytest.mark.parametrize(
    ("status", "body", "error", "message"),
    [
        (412, "", PreconditionFailed, "talk-1.ics: precondition failed (412)"),
        # A DAV:error body naming another precondition is not a UID conflict.
        (412, OTHER_PRECONDITION, PreconditionFailed, "talk-1.ics: precondition failed (412)"),
        (403, OTHER_PRECONDITION, AccessDenied, DENIED),
        (403, "", AccessDenied, DENIED),
        # RFC 4791 section 5.3.2.1: the precondition element in a DAV:error body, or alone.
        (409, NO_UID_CONFLICT, UidConflict, "talk-1.ics: the calendar already has an event with this UID"),
        (403, NO_UID_CONFLICT, UidConflict, "talk-1.ics: the calendar already has an event with this UID"),
        (412, NO_UID_CONFLICT, UidConflict, "talk-1.ics: the calendar already has an event with this UID"),
        (409, '<C:no-uid-conflict xmlns:C="urn:ietf:params:xml:ns:caldav"/>', UidConflict, None),
        (409, "", ServerFailed, "talk-1.ics: the server refused the write (HTTP 409)"),
        (404, "", ItemNotFound, "talk-1.ics: not found (404)"),
        (400, "<not xml", ServerFailed, "talk-1.ics: the server refused the write (HTTP 400)"),
    ],
)
def test_each_refusal_of_a_write_is_the_contracts_error_naming_the_event(
    calendar: DavBackend, status: int, body: str, error: type[Exception], message: str | None
) -> None:
    calendar.cue(answer("PUT", "talk-1.ics", status, body), answer("DELETE", "talk-1.ics", status, body))

    with pytest.raises(error) as on_put:
        calendar.dav.create("talk-1.ics", OURS)
    with pytest.raises(error) as on_delete:
        calendar.dav.delete("talk-1.ics", '"an-etag"')

    if message is not None:
        named = message.format(url=calendar.url)
        assert (str(on_put.value), str(on_delete.value)) == (named, named)
    assert calendar.contents() == {}  # the wrapper answered; Radicale saw nothing


def test_a_write_accepted_with_204_takes_the_etag_of_the_answer(calendar: DavBackend) -> None:
    calendar.cue(answer("PUT", "talk-1.ics", 204, ETag='"from-the-answer"'))

    etag = calendar.dav.create("talk-1.ics", OURS)

    assert etag == '"from-the-answer"'


def test_events_are_sent_as_utf_8_icalendar(calendar: DavBackend) -> None:
    before = calendar.server.counts()

    etag = calendar.dav.create("talk-1.ics", OURS)
    calendar.dav.update("talk-1.ics", OURS.replace(b"Talk one", b"Talk \xc3\xa9t\xc3\xa9"), etag)

    after = calendar.server.counts()
    # Media types are case-insensitive and a parameter's value may be quoted (RFC 9110 sections
    # 8.3.1, 5.6.6): charset="utf-8" and charset=UTF-8 say the same.
    sent = {
        k.lower().replace('"', ""): after[k] - before[k]
        for k in after
        if k.startswith("PUT as ") and after[k] != before[k]
    }
    assert sent == {"put as text/calendar; charset=utf-8": 2}


def test_a_busy_server_is_transient_and_its_retry_after_in_seconds_is_kept(calendar: DavBackend) -> None:
    calendar.cue(
        answer("PUT", "talk-1.ics", 429, Retry_After="7"),
        answer("DELETE", "talk-1.ics", 503, Retry_After="Wed, 21 Oct 2026 07:28:00 GMT"),
        answer("GET", "talk-1.ics", 502),
    )

    with pytest.raises(TransientError) as on_put:
        calendar.dav.create("talk-1.ics", OURS)
    with pytest.raises(TransientError) as on_delete:
        calendar.dav.delete("talk-1.ics", '"an-etag"')
    with pytest.raises(TransientError) as on_get:
        calendar.dav.get("talk-1.ics")

    assert (str(on_put.value), on_put.value.retry_after, on_put.value.unreachable) == (
        "PUT talk-1.ics: server error (HTTP 429)",
        7.0,
        False,
    )
    # An HTTP-date is not read (the retry policy's own wait applies).
    assert (str(on_delete.value), on_delete.value.retry_after) == ("DELETE talk-1.ics: server error (HTTP 503)", None)
    assert (str(on_get.value), on_get.value.retry_after) == ("GET talk-1.ics: server error (HTTP 502)", None)


def test_a_412_to_an_update_is_checked_with_a_propfind_whose_failure_is_named(calendar: DavBackend) -> None:
    etag = calendar.dav.create("talk-1.ics", OURS)
    calendar.cue(answer("PUT", "talk-1.ics", 412), answer("PROPFIND", "talk-1.ics", 503))

    with pytest.raises(TransientError) as raised:
        calendar.dav.update("talk-1.ics", OURS, etag)

    assert str(raised.value) == "PROPFIND talk-1.ics: server error (HTTP 503)"


def test_a_get_refused_names_the_event(calendar: DavBackend) -> None:
    calendar.cue(answer("GET", "talk-1.ics", 400), answer("GET", "talk-2.ics", 403))

    with pytest.raises(ServerFailed) as failed:
        calendar.dav.get("talk-1.ics")
    with pytest.raises(AccessDenied) as denied:
        calendar.dav.get("talk-2.ics")

    assert str(failed.value) == "GET talk-1.ics failed (HTTP 400)"
    assert str(denied.value) == DENIED.format(url=calendar.url)


def test_a_missing_item_is_named(calendar: DavBackend) -> None:
    etag = calendar.dav.create("talk-1.ics", OURS)
    calendar.owner_delete("talk-1.ics")

    with pytest.raises(ItemNotFound) as on_get:
        calendar.dav.get("talk-1.ics")
    with pytest.raises(ItemNotFound) as on_update:
        calendar.dav.update("talk-1.ics", OURS, etag)

    assert (str(on_get.value), str(on_update.value)) == ("talk-1.ics: not found", "talk-1.ics: not found")


def test_the_uid_search_matches_exactly_and_quotes_xml_characters(calendar: DavBackend) -> None:
    odd = "talk<1>&more@example.org"
    calendar.owner_put("odd.ics", event_ics(odd, "Odd", START))
    calendar.owner_put("longer.ics", event_ics(odd + ".copy", "Longer", START))
    calendar.owner_put("plain.ics", event_ics("talk-1@example.org", "Plain", START))

    assert calendar.dav.holders(odd) == ["odd.ics"]  # text-match is a substring match
    assert calendar.dav.holders("talk-1@example.org") == ["plain.ics"]
    assert calendar.dav.holders("nobody@example.org") == []


def test_a_lost_answer_names_the_calendar_and_what_happened(calendar: DavBackend) -> None:
    calendar.cue(lose_answer("PUT", "talk-1.ics"))

    with pytest.raises(TransientError) as raised:
        calendar.dav.create("talk-1.ics", OURS)

    assert str(raised.value) == f"cannot reach {calendar.url}: the connection closed without an answer"


def test_a_refused_connection_is_named() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/alice/cal/"

    with pytest.raises(TransientError) as raised:
        DavStorage.connect(url, USER, Password(PASSWORD), allow_private=True)

    assert (str(raised.value), raised.value.unreachable) == (f"cannot reach {url}: connection failed", True)


def test_a_server_that_never_answers_times_out() -> None:
    # The per-wait timeout ends the request, long before the run's deadline would.
    with silent_server() as url, pytest.raises(TransientError) as raised:
        DavStorage.connect(url, USER, Password(PASSWORD), allow_private=True, timeout=0.3, deadline=4)

    assert (str(raised.value), raised.value.unreachable) == (f"cannot reach {url}: timed out", True)


def test_names_that_need_quoting_round_trip_through_put_and_listing(calendar: DavBackend) -> None:
    name = "talk 1 @ room#2 100%.ics"

    etag = calendar.dav.create(name, OURS)

    assert calendar.dav.list() == {name: etag}
    assert calendar.dav.get(name).etag == etag


def test_a_user_name_given_wins_over_the_urls_and_none_at_all_is_refused_login(calendar: DavBackend) -> None:
    with_other_user = calendar.url.replace("http://", "http://mallory@")

    storage = DavStorage.connect(with_other_user, USER, Password(PASSWORD), allow_private=True)
    storage.close()
    with pytest.raises(AuthenticationFailed):
        DavStorage.connect(calendar.url, None, None, allow_private=True)
    with pytest.raises(AuthenticationFailed):
        DavStorage.connect(calendar.url, USER, None, allow_private=True)


def test_the_user_name_may_come_from_the_url(calendar: DavBackend) -> None:
    with_user = calendar.url.replace("http://", f"http://{USER}@")
    before = calendar.server.counts()

    storage = DavStorage.connect(with_user, None, Password(PASSWORD), allow_private=True)
    storage.close()

    assert calendar.server.counts()["status 401"] == before["status 401"]


@pytest.mark.parametrize(
    ("url", "public"),
    [
        ("https://alice:secret@cal.example.org:8443/a/cal/?x=1#top", "https://cal.example.org:8443/a/cal/?x=1"),
        ("http://alice@[2001:db8::1]/a/cal/", "http://[2001:db8::1]/a/cal/"),
        ("http://[2001:db8::1]:8080/a/", "http://[2001:db8::1]:8080/a/"),
        ("HTTP://Cal.Example.org/a/", "http://cal.example.org/a/"),
    ],
)
def test_the_public_url_drops_user_and_password_and_keeps_the_rest(url: str, public: str) -> None:
    assert public_url(url) == public


def test_the_calendar_key_is_the_public_url_with_the_collections_slash() -> None:
    keys = [calendar_key("https://alice@cal.example.org/a/cal"), calendar_key("https://cal.example.org/a/cal/")]

    assert keys == ["https://cal.example.org/a/cal/", "https://cal.example.org/a/cal/"]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "https://alice:secret@cal.example.org/a/",
            "the calendar URL carries a password; use --password-env or --password-file",
        ),
        (
            "https://:secret@cal.example.org/a/",
            "the calendar URL carries a password; use --password-env or --password-file",
        ),
        ("ftp://cal.example.org/a/", "ftp://cal.example.org/a/ is not an http(s) URL"),
        ("https:///a/", "https:///a/ is not an http(s) URL"),
        ("cal.example.org/a/", "cal.example.org/a/ is not an http(s) URL"),
    ],
)
def test_a_url_that_cannot_name_a_calendar_is_refused_with_its_reason(url: str, message: str) -> None:
    with pytest.raises(BadCalendarUrl) as raised:
        check_url(url)

    assert str(raised.value) == message


@pytest.mark.parametrize("url", ["https://alice@cal.example.org/a/", "HTTPS://cal.example.org/a/", "http://[::1]/a/"])
def test_http_and_https_urls_with_a_host_are_accepted(url: str) -> None:
    assert check_url(url) == url


def test_a_create_looks_the_uid_up_first_and_sends_no_put_when_it_is_held(calendar: DavBackend) -> None:
    # DAViCal does not enforce no-uid-conflict: the calendar-query before the PUT is what keeps a
    # second copy out, so the PUT must not be sent at all.
    before = calendar.server.counts()
    calendar.dav.create("talk-1.ics", OURS)
    between = calendar.server.counts()

    with pytest.raises(UidConflict) as raised:
        calendar.dav.create("talk-2.ics", OURS)

    after = calendar.server.counts()
    assert [(c["REPORT"] - b["REPORT"], c["PUT"] - b["PUT"]) for b, c in ((before, between), (between, after))] == [
        (1, 1),
        (1, 0),
    ]
    assert str(raised.value) == "talk-2.ics: the calendar already has an event with this UID"


def test_a_failed_uid_search_is_named(calendar: DavBackend) -> None:
    collection = calendar.url.rstrip("/").rsplit("/", 1)[-1]  # the cue's name for the calendar itself
    calendar.cue(
        answer("REPORT", collection, 400, '<?xml version="1.0"?><D:error xmlns:D="DAV:"/>'),
        answer("REPORT", collection, 403),
        answer("REPORT", collection, 503),
    )
    uid = "talk-1@pytorch-conference-europe-2026.confcal"

    with pytest.raises(ServerFailed) as failed:
        calendar.dav.holders(uid)
    with pytest.raises(AccessDenied):
        calendar.dav.holders(uid)
    with pytest.raises(TransientError) as busy:
        calendar.dav.holders(uid)

    assert str(failed.value) == f"searching {calendar.url} for a UID failed (HTTP 400)"
    assert str(busy.value) == f"REPORT {uid}: server error (HTTP 503)"


def multistatus(*responses: tuple[str, str, bool]) -> str:
    """A Depth 1 PROPFIND answer: (href, getetag or "", is a collection) per member."""
    parts = []
    for href, etag, collection in responses:
        kind = "<D:collection/>" if collection else ""
        tag = f"<D:getetag>{etag}</D:getetag>" if etag else ""
        parts.append(
            f"<D:response><D:href>{href}</D:href><D:propstat><D:prop>{tag}<D:resourcetype>{kind}</D:resourcetype>"
            "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
        )
    # Whitespace before the root element (no XML declaration) is well-formed XML, and sent so.
    return f'\n  <D:multistatus xmlns:D="DAV:">{"".join(parts)}</D:multistatus>'


def test_the_listing_holds_the_calendars_own_objects_by_name(calendar: DavBackend) -> None:
    server = calendar.server
    assert isinstance(server, DavServer)
    path = calendar.url.split(f":{server.port}", 1)[1]
    collection = path.rstrip("/").rsplit("/", 1)[-1]
    calendar.cue(
        answer(
            "PROPFIND",
            collection,
            207,
            multistatus(
                (path, '"c"', True),  # the calendar itself
                (path + "a.ics", '"1"', False),
                (f"http://127.0.0.1:{server.port}{path}b.ics", '"2"', False),  # an absolute href
                (path + "c%20d.ics", '"3"', False),
                (path + "sub/", '"4"', True),  # a member collection
                (path + "odd", '"5"', True),  # a collection without its slash
                (path + "no-etag.ics", "", False),
                (path + "deeper/e.ics", '"6"', False),
                ("/elsewhere/f.ics", '"7"', False),
            ),
        )
    )

    listing = calendar.dav.list()

    assert listing == {"a.ics": '"1"', "b.ics": '"2"', "c d.ics": '"3"'}


def test_a_listing_that_is_not_a_multistatus_is_named(calendar: DavBackend) -> None:
    collection = calendar.url.rstrip("/").rsplit("/", 1)[-1]
    calendar.cue(
        answer("PROPFIND", collection, 200, "<html>a login page</html>"),
        answer("PROPFIND", collection, 207, "not xml"),
        answer("PROPFIND", collection, 400, multistatus()),
        answer("PROPFIND", collection, 403),
        answer("PROPFIND", collection, 503),
    )

    with pytest.raises(ServerFailed) as html:
        calendar.dav.list()
    with pytest.raises(ServerFailed) as garbled:
        calendar.dav.list()
    with pytest.raises(ServerFailed) as refused:
        calendar.dav.list()
    with pytest.raises(AccessDenied):
        calendar.dav.list()
    with pytest.raises(TransientError) as busy:
        calendar.dav.list()

    assert (str(html.value), str(garbled.value), str(refused.value), str(busy.value)) == (
        f"listing {calendar.url} failed (HTTP 200)",
        f"listing {calendar.url} failed (HTTP 207)",
        f"listing {calendar.url} failed (HTTP 400)",
        "PROPFIND calendar: server error (HTTP 503)",
    )


@pytest.mark.parametrize(
    ("status", "body", "error", "message"),
    [
        (404, "", CalendarNotFound, "no calendar at {url} (404)"),
        (
            207,  # Xandikos' way: 207 with the 404 inside
            '<?xml version="1.0"?><D:multistatus xmlns:D="DAV:"><D:response><D:href>/x/</D:href>'
            "<D:status>HTTP/1.1 404 Not Found</D:status></D:response></D:multistatus>",
            CalendarNotFound,
            "no calendar at {url} (404)",
        ),
        (200, "<html/>", NotACalendar, "{url} did not answer PROPFIND as a WebDAV collection (HTTP 200)"),
        (207, "garbled", NotACalendar, "{url} did not answer PROPFIND as a WebDAV collection (HTTP 207)"),
        (
            207,
            multistatus(("/x/", "", True)),
            NotACalendar,
            "{url} is not a calendar collection (find the calendar's own URL)",
        ),
    ],
)
def test_the_calendar_check_names_what_it_found(
    calendar: DavBackend, status: int, body: str, error: type[Exception], message: str
) -> None:
    collection = calendar.url.rstrip("/").rsplit("/", 1)[-1]
    calendar.cue(answer("PROPFIND", collection, status, body))

    with pytest.raises(error) as raised:
        DavStorage.connect(calendar.url, USER, Password(PASSWORD), allow_private=True)

    assert str(raised.value) == message.format(url=calendar.url)


def test_a_calendar_url_that_redirects_is_reported_not_followed(calendar: DavBackend) -> None:
    collection = calendar.url.rstrip("/").rsplit("/", 1)[-1]
    calendar.cue(answer("PROPFIND", collection, 301, Location=calendar.url))

    with pytest.raises(NotACalendar) as raised:
        DavStorage.connect(calendar.url, USER, Password(PASSWORD), allow_private=True)

    assert str(raised.value) == f"{calendar.url} did not answer PROPFIND as a WebDAV collection (HTTP 301)"


def test_an_answer_is_read_up_to_20_mib_and_no_further(calendar: DavBackend) -> None:
    assert MAX_ANSWER == 20 * 1024 * 1024
    calendar.cue(
        answer("GET", "talk-1.ics", 200, "x" * MAX_ANSWER, ETag='"big"'),
        answer("GET", "talk-2.ics", 200, "x" * (MAX_ANSWER + 1), ETag='"bigger"'),
    )

    at_cap = calendar.dav.get("talk-1.ics")
    with pytest.raises(ServerFailed) as raised:
        calendar.dav.get("talk-2.ics")

    assert (len(at_cap.ics), at_cap.etag) == (MAX_ANSWER, '"big"')
    assert str(raised.value) == f"GET talk-2.ics: the answer is larger than the limit of {MAX_ANSWER} bytes"


@pytest.mark.parametrize(("status", "transient"), [(499, False), (500, True), (429, True), (428, False)])
def test_server_errors_and_429_are_transient_other_refusals_are_not(
    calendar: DavBackend, status: int, transient: bool
) -> None:
    calendar.cue(answer("GET", "talk-1.ics", status))

    with pytest.raises((TransientError, ServerFailed)) as raised:
        calendar.dav.get("talk-1.ics")

    assert isinstance(raised.value, TransientError) is transient


def test_a_refused_login_is_named(calendar: DavBackend) -> None:
    with pytest.raises(AuthenticationFailed) as raised:
        DavStorage.connect(calendar.url, USER, Password("wrong-password-1"), allow_private=True)

    assert str(raised.value) == f"cannot log in to {calendar.url} (401): wrong user name or password?"


def test_a_server_silent_past_the_runs_deadline_is_unreachable() -> None:
    with silent_server() as url, pytest.raises(ServerUnreachable) as raised:
        DavStorage.connect(url, USER, Password(PASSWORD), allow_private=True, timeout=10, deadline=0.3)

    assert str(raised.value).startswith(f"cannot reach {url}: ")


def test_a_private_address_is_refused_by_name(radicale: DavServer) -> None:
    url = radicale.new_calendar()

    with pytest.raises(AddressNotAllowed) as raised:
        DavStorage.connect(url, USER, Password(PASSWORD))

    assert str(raised.value).startswith(f"{url}: ")


def test_a_write_whose_etag_cannot_be_read_back_is_refused_by_name(calendar: DavBackend) -> None:
    # The PUT's answer has no ETag, so the storage asks for the stored one (PROPFIND Depth 0): a
    # server that has none to give cannot be synced safely, one that lost the event says so.
    calendar.cue(
        drop_etag("PUT", "talk-1.ics"),
        answer("PROPFIND", "talk-1.ics", 207, multistatus(("/x/talk-1.ics", "", False))),
        drop_etag("PUT", "talk-2.ics"),
        answer("PROPFIND", "talk-2.ics", 404),
        drop_etag("PUT", "talk-3.ics"),
        answer("PROPFIND", "talk-3.ics", 503),
        drop_etag("PUT", "talk-4.ics"),
        answer("PROPFIND", "talk-4.ics", 403),
    )
    third = event_ics("talk-3@pytorch-conference-europe-2026.confcal", "Talk three", START)
    fourth = event_ics("talk-4@pytorch-conference-europe-2026.confcal", "Talk four", START)

    with pytest.raises(ServerFailed) as no_etag:
        calendar.dav.create("talk-1.ics", OURS)
    with pytest.raises(ItemNotFound) as gone:
        calendar.dav.create("talk-2.ics", OTHER)
    with pytest.raises(TransientError) as busy:
        calendar.dav.create("talk-3.ics", third)
    with pytest.raises(AccessDenied):
        calendar.dav.create("talk-4.ics", fourth)

    assert str(no_etag.value) == "talk-1.ics: the server gives no ETag; it cannot be synced safely"
    assert str(gone.value) == "talk-2.ics: not found"
    assert str(busy.value) == "PROPFIND talk-3.ics: server error (HTTP 503)"


def test_a_name_that_does_not_resolve_is_transient_and_unreachable() -> None:
    url = "http://calendar.invalid/alice/cal/"  # RFC 6761 section 6.4: never resolves

    with pytest.raises(TransientError) as raised:
        DavStorage.connect(url, USER, Password(PASSWORD), allow_private=True)

    assert raised.value.unreachable is True
    assert str(raised.value).startswith(f"cannot reach {url}: cannot resolve host calendar.invalid")


def test_an_endless_answer_is_cut_at_the_cap_while_it_streams() -> None:
    # A server that sends a body past the cap and then never ends it: the storage stops reading
    # at the cap (a client that read the whole answer first would wait for an end that never comes).
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(5)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/alice/cal/"
        done = threading.Event()

        def serve() -> None:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 207 Multi-Status\r\nContent-Type: application/xml\r\n\r\n")
                try:
                    conn.sendall(b" " * (MAX_ANSWER + 1))
                except OSError:
                    pass  # the client stopped reading and closed
                done.wait(10)

        thread = threading.Thread(target=serve)
        thread.start()
        try:
            with pytest.raises(ServerFailed) as raised:
                DavStorage.connect(url, USER, Password(PASSWORD), allow_private=True, timeout=3)
        finally:
            done.set()
            thread.join()

    assert str(raised.value) == f"PROPFIND calendar: the answer is larger than the limit of {MAX_ANSWER} bytes"


UNIQUE = ERROR.format("<C:unique-scheduling-object-resource><D:href>{}</D:href></C:unique-scheduling-object-resource>")


def test_a_uid_the_account_holds_in_a_named_calendar_is_a_uid_conflict_naming_it(calendar: DavBackend) -> None:
    # Cyrus's answer for a UID held in another calendar of the account (RFC 6638 section 3.2.4.1):
    # the holder is read back for its calendar's display name (Radicale names a calendar it made
    # without one by nothing, so this one gets a name first).
    holder = calendar.url + "held-elsewhere.ics"
    calendar.server.request(
        "PROPPATCH",
        calendar.url,
        b'<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:"><d:set><d:prop>'
        b"<d:displayname>Personal</d:displayname></d:prop></d:set></d:propertyupdate>",
        {"Content-Type": "application/xml"},
    )
    calendar.cue(answer("PUT", "talk-1.ics", 403, UNIQUE.format(holder)))

    with pytest.raises(UidConflict) as raised:
        calendar.dav.create("talk-1.ics", OURS)

    assert (str(raised.value), raised.value.holder, raised.value.calendar) == (
        f"talk-1.ics: the account already has an event with this UID at {holder}",
        holder,
        "Personal",
    )


def test_a_uid_held_where_no_calendar_name_can_be_read_names_the_holder(calendar: DavBackend) -> None:
    holder = "/nowhere/personal/held-elsewhere.ics"
    calendar.cue(answer("PUT", "talk-1.ics", 403, UNIQUE.format(holder)))

    with pytest.raises(UidConflict) as raised:
        calendar.dav.create("talk-1.ics", OURS)

    assert (raised.value.holder, raised.value.calendar) == (holder, None)


def test_a_push_reports_a_uid_held_at_an_unnamed_holder_and_goes_on(calendar: DavBackend, engine: Engine) -> None:
    schedule = make_schedule(2)
    holder = "/nowhere/personal/held-elsewhere.ics"
    calendar.cue(answer("PUT", name_of("s0"), 403, UNIQUE.format(holder)))

    summary = run_push(calendar, engine, schedule, ["s0", "s1"])

    assert summary.line() == "created 1, updated 0, deleted 0, unchanged 0, conflicts 1"
    assert summary.conflicts == [
        f"{uid(CONFERENCE, schedule.sessions[0])}: already in your calendar at {holder}; left alone"
    ]


def test_a_holder_on_another_origin_is_named_but_never_asked(calendar: DavBackend) -> None:
    # Our credentials go to the calendar's origin only: the holder's calendar name is not looked up.
    holder = "http://127.0.0.2:9/personal/held-elsewhere.ics"
    calendar.cue(answer("PUT", "talk-1.ics", 403, UNIQUE.format(holder)))

    with pytest.raises(UidConflict) as raised:
        calendar.dav.create("talk-1.ics", OURS)

    assert (raised.value.holder, raised.value.calendar) == (holder, None)


def test_a_uid_held_in_the_account_without_an_href_is_still_a_uid_conflict(calendar: DavBackend) -> None:
    calendar.cue(answer("PUT", "talk-1.ics", 403, ERROR.format("<C:unique-scheduling-object-resource/>")))

    with pytest.raises(UidConflict) as raised:
        calendar.dav.create("talk-1.ics", OURS)

    assert (str(raised.value), raised.value.holder) == (
        "talk-1.ics: the account already has an event with this UID",
        None,
    )
