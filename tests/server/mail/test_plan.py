"""What an address is sent (server.mail.plan): REQUEST for what it lacks or holds at an older
revision, CANCEL for what it holds and should not, nothing else; SEQUENCE only ever rises."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, timedelta

from feeds.model import Conference, Schedule, Session, Status
from server.mail.itip import Method
from server.mail.plan import Sent, plan

CONF = Conference("Tiny Conf", "Europe/Paris", date(2026, 4, 7), date(2026, 4, 7), slug="tiny")
START = datetime(2026, 4, 7, 7, 0, tzinfo=UTC)


def talk(n: int, revision: int = 0, status: Status = Status.CONFIRMED) -> Session:
    start = START + timedelta(hours=n)
    return Session(f"s{n}", f"Talk {n}", start, start + timedelta(minutes=30), revision=revision, status=status)


def steps(schedule: Schedule, picked: list[str], sent: dict[str, Sent]) -> list[tuple[str, str, int]]:
    return [(o.method.value, o.session.id, o.sequence) for o in plan(schedule, picked, sent)]


def test_every_pick_never_sent_gets_a_request_at_its_revision() -> None:
    schedule = Schedule(CONF, (talk(1), talk(2, revision=3), talk(3)))

    assert steps(schedule, ["s1", "s2"], {}) == [("REQUEST", "s1", 0), ("REQUEST", "s2", 3)]


def test_only_a_newer_revision_is_sent_again() -> None:
    schedule = Schedule(CONF, (talk(1, revision=1), talk(2, revision=0)))
    sent = {"s1": Sent("s1", "u1", 0, 0, False), "s2": Sent("s2", "u2", 0, 0, False)}

    assert steps(schedule, ["s1", "s2"], sent) == [("REQUEST", "s1", 1)]


def test_a_withdrawn_or_unpicked_session_is_cancelled_above_the_last_sequence() -> None:
    schedule = Schedule(CONF, (talk(1, revision=1, status=Status.CANCELLED), talk(2)))
    sent = {"s1": Sent("s1", "u1", 0, 0, False), "s2": Sent("s2", "u2", 0, 0, False)}

    assert steps(schedule, ["s1"], sent) == [("CANCEL", "s1", 1), ("CANCEL", "s2", 1)]


def test_a_session_picked_again_after_its_cancel_comes_back_above_it() -> None:
    schedule = Schedule(CONF, (talk(1),))

    assert steps(schedule, ["s1"], {"s1": Sent("s1", "u1", 1, 0, True)}) == [("REQUEST", "s1", 2)]


def test_a_cancelled_one_stays_cancelled_without_another_message() -> None:
    schedule = Schedule(CONF, (dataclasses.replace(talk(1), status=Status.CANCELLED),))

    assert plan(schedule, [], {"s1": Sent("s1", "u1", 1, 0, True)}) == ()
    assert Method.CANCEL.value == "CANCEL"
