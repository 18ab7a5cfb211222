"""Done when, in one process as `confcal serve` runs it: the app, its job queue's
worker threads and a real SMTP server on loopback (STARTTLS, AUTH). Nothing reaches an address
before its link is opened; then one iTIP REQUEST per pick; unpicking sends a CANCEL; a new
version sends a REQUEST for a moved session and a CANCEL for a withdrawn one, and nothing for
the rest; the stop link and DELETE stop."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import icalendar

from server.jobs.triggers import SyncTriggers
from tests.helpers.smtp_server import SENDER, Delivered
from tests.helpers.vevents import sequence, vevents
from tests.server.mail.conftest import ADDRESS, SLUG, World, change_conf, link_path

KEYNOTE, COMPILE, GRAPH = "Opening Keynote", "Compilers for Everyone", "Graph Breaks Explained"


def event_of(message: Delivered) -> icalendar.Event:
    calendar = icalendar.Calendar.from_ical(message.calendar())
    (event,) = vevents(calendar)
    return event


def settle() -> None:
    """Time for the queue's worker threads to send anything they would (nothing is expected)."""
    time.sleep(3)


def test_nothing_but_the_confirmation_is_sent_before_the_link_is_opened(world: World) -> None:
    token = world.pick(KEYNOTE, COMPILE)

    asked = world.ask(token)
    world.repick(token, KEYNOTE, COMPILE, GRAPH)
    world.store.ingest(change_conf(2))  # type: ignore[arg-type]
    SyncTriggers(world.store, world.jobs).version_committed(SLUG)
    settle()

    (only,) = world.smtp.delivered
    assert asked.status == 202
    assert asked.json_doc()["state"] == "pending"
    assert only.recipients == (ADDRESS,)
    assert only.method is None
    assert link_path(only, "confirm").startswith("/api/invitations/confirm/")


def test_confirming_sends_one_itip_request_per_pick(world: World) -> None:
    token = world.pick(KEYNOTE, COMPILE, GRAPH)

    invitations = world.subscribed(token, picks=3)

    feed = icalendar.Calendar.from_ical(world.http.get(f"/p/{token}.ics").content)
    feed_times = sorted((e.decoded("DTSTART"), e.decoded("DTEND")) for e in feed.walk("VEVENT"))
    feed_uids = {str(e["UID"]) for e in feed.walk("VEVENT")}
    events = [event_of(m) for m in invitations]
    assert [m.method for m in invitations] == ["REQUEST"] * 3
    assert [m.recipients for m in invitations] == [(ADDRESS,)] * 3
    assert sorted(str(e["SUMMARY"]) for e in events) == sorted([KEYNOTE, COMPILE, GRAPH])
    assert sorted((e.decoded("DTSTART"), e.decoded("DTEND")) for e in events) == feed_times
    assert {str(e["ORGANIZER"]) for e in events} == {f"mailto:{SENDER}"}
    assert {(str(e["ATTENDEE"]), e["ATTENDEE"].params["RSVP"]) for e in events} == {(f"mailto:{ADDRESS}", "FALSE")}
    assert {str(e["UID"]) for e in events}.isdisjoint(feed_uids)
    assert len({str(e["UID"]) for e in events}) == 3
    assert [sequence(e) for e in events] == [0, 0, 0]


def test_each_invitation_is_multipart_alternative_with_text_then_calendar(world: World) -> None:
    token = world.pick(KEYNOTE)

    (message,) = world.subscribed(token, picks=1)

    parts = [p.get_content_type() for p in message.message.iter_parts()]
    calendar_part = list(message.message.iter_parts())[1]
    assert message.message.get_content_type() == "multipart/alternative"
    assert parts == ["text/plain", "text/calendar"]
    assert (calendar_part.get_param("method"), calendar_part.get_param("charset")) == ("REQUEST", "UTF-8")
    assert message.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message.message["List-Unsubscribe"].strip().startswith("<http://testserver/api/invitations/stop/")


def test_unpicking_a_session_sends_its_cancel_with_a_higher_sequence(world: World) -> None:
    token = world.pick(KEYNOTE, COMPILE)
    sent = {str(event_of(m)["SUMMARY"]): event_of(m) for m in world.subscribed(token, picks=2)}

    world.repick(token, KEYNOTE)
    (cancel,) = world.smtp.wait_for(4)[3:]
    settle()

    event = event_of(cancel)
    assert len(world.smtp.delivered) == 4
    assert cancel.method == "CANCEL"
    assert (str(event["UID"]), sequence(event)) == (str(sent[COMPILE]["UID"]), 1)
    assert str(event["STATUS"]) == "CANCELLED"


def test_a_new_version_sends_one_request_for_the_moved_and_one_cancel_for_the_withdrawn(world: World) -> None:
    token = world.pick(KEYNOTE, COMPILE, GRAPH)
    sent = {str(event_of(m)["SUMMARY"]): event_of(m) for m in world.subscribed(token, picks=3)}

    world.store.ingest(change_conf(2))  # type: ignore[arg-type]
    world.jobs.queue_wanted(SLUG)  # what a source refresh job does after its ingest
    changes = world.smtp.wait_for(6)[4:]
    settle()

    by_method = {m.method: event_of(m) for m in changes}
    assert len(world.smtp.delivered) == 6
    assert sorted(method or "" for method in by_method) == ["CANCEL", "REQUEST"]
    moved, withdrawn = by_method["REQUEST"], by_method["CANCEL"]
    assert (str(moved["UID"]), sequence(moved)) == (
        str(sent[COMPILE]["UID"]),
        sequence(sent[COMPILE]) + 1,
    )
    assert moved.decoded("DTSTART") - sent[COMPILE].decoded("DTSTART") == timedelta(hours=1)
    assert str(withdrawn["UID"]) == str(sent[GRAPH]["UID"])


def recorded_state(world: World, token: str, requests: int) -> dict[str, Any]:
    """The invitations' state once the sender has recorded `requests` requests, or after ten
    seconds: it records each message once the SMTP server has taken it, so a message can be
    delivered a moment before it is counted."""
    deadline = time.monotonic() + 10
    while True:
        state: dict[str, Any] = world.http.get(f"/api/picks/{token}/invitations").json_doc()
        if state["counts"]["requests"] >= requests or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


def test_the_state_shows_the_address_masked_with_counts(world: World) -> None:
    token = world.pick(KEYNOTE, COMPILE)
    world.subscribed(token, picks=2)

    state = recorded_state(world, token, requests=2)

    assert (state["email"], state["state"], state["confirmed"]) == ("a***@mail.example.net", "active", True)
    assert (state["counts"], state["last_error"]) == ({"requests": 2, "cancels": 0}, None)
    assert state["last_sent"] is not None


def test_the_one_click_stop_link_stops_and_keeps_the_events(world: World) -> None:
    token = world.pick(KEYNOTE, COMPILE)
    (first, _) = world.subscribed(token, picks=2)

    stopped = world.http.request(
        "POST",
        link_path(first, "stop"),
        {"content-type": "application/x-www-form-urlencoded"},
        b"List-Unsubscribe=One-Click",
    )
    world.repick(token, KEYNOTE)
    settle()

    assert stopped.status == 200
    assert len(world.smtp.delivered) == 3
    assert world.http.get(f"/api/picks/{token}/invitations").json_doc()["state"] == "none"


def test_the_stop_page_asks_whether_to_cancel_and_its_form_cancels(world: World) -> None:
    token = world.pick(KEYNOTE, COMPILE)
    (first, _) = world.subscribed(token, picks=2)
    path = link_path(first, "stop")

    page = world.http.get(path)
    stopped = world.http.request("POST", path, {"content-type": "application/x-www-form-urlencoded"}, b"cancel_sent=1")

    cancels = world.smtp.delivered[3:]
    assert page.status == 200
    assert 'name="cancel_sent" value="1"' in page.text
    assert stopped.status == 200
    assert sorted(m.method or "" for m in cancels) == ["CANCEL", "CANCEL"]
    assert world.http.get(path).status == 404


def test_delete_asks_whether_to_cancel_the_events_already_sent(world: World) -> None:
    token = world.pick(KEYNOTE, COMPILE)
    world.subscribed(token, picks=2)

    unsaid = world.http.request("DELETE", f"/api/picks/{token}/invitations")
    kept = world.http.request("DELETE", f"/api/picks/{token}/invitations?cancel_sent=1")

    assert unsaid.status == 400
    assert kept.status == 204
    assert [m.method for m in world.smtp.delivered[3:]] == ["CANCEL", "CANCEL"]
    assert world.http.get(f"/api/picks/{token}/invitations").json_doc()["state"] == "none"
