"""One invitation job (server.jobs.invitations.run_invitations) against a real SMTP server: a 4xx
is retried after a backoff, a 5xx stops the address for good with the reason in its state, a
domain over its rate waits, and a job holding nothing new sends nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import icalendar
import pytest

from server.jobs.invitations import Again, Schedules, Sender, run_invitations
from server.mail.settings import mail_settings
from server.store import Store
from server.store.invitations import Invitations, InvitationState
from server.store.picks import PickStore
from tests.helpers.smtp_server import SmtpServer
from tests.helpers.vevents import sequence
from tests.server.mail.conftest import ADDRESS, SLUG, change_conf

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "store.sqlite"))
    opened.ingest(change_conf(1), now=START)  # type: ignore[arg-type]
    yield opened
    opened.close()


def confirmed(store: Store, picks: int = 2) -> int:
    schedule = store.live(SLUG)
    assert schedule is not None
    token = PickStore(store.engine).create(SLUG, [s.id for s in schedule.sessions[:picks]]).token
    table = Invitations(store.engine)
    asked, code = table.request(SLUG, token, ADDRESS, "http://testserver", START)
    table.confirm(code, START)
    return asked.id


def sender_of(smtp: SmtpServer, **env: str) -> Iterator[Sender]:
    settings = mail_settings({**smtp.env, **env})
    assert settings is not None
    sender = Sender.of(settings)
    yield sender
    sender.relay.close()


@pytest.fixture
def sender(smtp: SmtpServer) -> Iterator[Sender]:
    yield from sender_of(smtp)


def run(store: Store, invitation: int, sender: Sender, clock: Clock) -> Again | None:
    # The pace's clock stands still with the test's: no token is earned back while mail is sent.
    table, schedules = Invitations(store.engine), Schedules(store)
    return run_invitations(store, table, invitation, sender, clock, schedules, monotonic=lambda: 0.0)


def test_a_job_sends_what_is_missing_and_a_second_sends_nothing(store: Store, smtp: SmtpServer, sender: Sender) -> None:
    invitation = confirmed(store)

    first = run(store, invitation, sender, Clock())
    second = run(store, invitation, sender, Clock())

    assert (first, second) == (None, None)
    assert [m.method for m in smtp.delivered] == ["REQUEST", "REQUEST"]


def test_a_4xx_is_tried_again_after_a_backoff(store: Store, smtp: SmtpServer, sender: Sender) -> None:
    invitation = confirmed(store)
    smtp.refuse(ADDRESS, "451 4.7.1 greylisted, come back later")
    clock = Clock()

    again = run(store, invitation, sender, clock)
    state = Invitations(store.engine).get(invitation)
    smtp.accept(ADDRESS)
    clock.now = START + timedelta(seconds=1)
    early = run(store, invitation, sender, clock)
    assert again is not None
    clock.now = again.at
    late = run(store, invitation, sender, clock)

    assert state is not None
    assert (state.state, state.attempts, state.last_error) == (
        InvitationState.ACTIVE,
        1,
        "the mail relay refused the recipient: 451 4.7.1 greylisted, come back later",
    )
    assert timedelta(seconds=2.5) <= again.at - START <= timedelta(seconds=5)
    assert (early, late) == (None, None)
    assert [m.method for m in smtp.delivered] == ["REQUEST", "REQUEST"]


def test_a_5xx_stops_the_address_for_good_and_the_state_says_why(
    store: Store, smtp: SmtpServer, sender: Sender
) -> None:
    invitation = confirmed(store)
    smtp.refuse(ADDRESS, f"550 5.1.1 <{ADDRESS}>: mailbox unavailable")

    stopped = run(store, invitation, sender, Clock())
    state = Invitations(store.engine).get(invitation)
    later = run(store, invitation, sender, Clock())

    assert (stopped, later) == (None, None)
    assert state is not None
    assert (state.state, state.last_error) == (
        InvitationState.FAILED,
        "the mail relay refused the recipient: 550 5.1.1 <(the address)>: mailbox unavailable",
    )
    assert Invitations(store.engine).due() == []
    assert smtp.delivered == []


def test_a_domain_over_its_rate_waits_for_its_next_token(store: Store, smtp: SmtpServer) -> None:
    invitation = confirmed(store, picks=3)
    clock = Clock()

    for slow in sender_of(smtp, CONFCAL_MAIL_PER_DOMAIN="2"):
        again = run(store, invitation, slow, clock)

    state = Invitations(store.engine).get(invitation)
    assert again is not None
    assert again.at - START == timedelta(seconds=30)
    assert state is not None and state.requests == 2
    assert len(smtp.delivered) == 2


def test_the_same_address_asked_again_after_a_refusal_goes_on_from_what_it_was_sent(
    store: Store, smtp: SmtpServer, sender: Sender
) -> None:
    invitation = confirmed(store, picks=1)
    table, picks = Invitations(store.engine), PickStore(store.engine)
    found = table.get(invitation)
    assert found is not None
    held = picks.get(found.pick_token)
    assert held is not None
    only = list(held.sessions)
    run(store, invitation, sender, Clock())  # REQUEST, SEQUENCE 0
    picks.replace(found.pick_token, [])
    run(store, invitation, sender, Clock())  # CANCEL, SEQUENCE 1
    smtp.refuse(ADDRESS, "550 mailbox full")
    picks.replace(found.pick_token, only)
    run(store, invitation, sender, Clock())  # refused: stopped
    smtp.accept(ADDRESS)

    _, code = table.request(SLUG, found.pick_token, ADDRESS, "http://testserver", START)
    table.confirm(code, START)
    run(store, invitation, sender, Clock())

    sent = [(m.method, sequence(icalendar.Calendar.from_ical(m.calendar()).walk("VEVENT")[0])) for m in smtp.delivered]
    assert sent == [("REQUEST", 0), ("CANCEL", 1), ("REQUEST", 2)]
