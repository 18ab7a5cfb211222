"""The SMTP edge (server.mail.smtp) against a real server on loopback: STARTTLS and AUTH, one
connection for many messages, and the three kinds of failure, none of them quoting the address."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from server.mail.address import parse_address
from server.mail.messages import confirmation
from server.mail.settings import MailSettings, mail_settings
from server.mail.smtp import PermanentFailure, Relay, RelayRefused, TemporaryFailure
from server.web.demo import demo_schedule
from tests.helpers.smtp_server import SmtpServer, running_smtp

NOW = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
TO = parse_address("ada.lovelace@mail.example.net")


@pytest.fixture
def smtp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SmtpServer]:
    with running_smtp(tmp_path) as server:
        monkeypatch.setenv("SSL_CERT_FILE", str(server.ca_file))
        yield server


def settings_of(server: SmtpServer, **changes: str) -> MailSettings:
    found = mail_settings({**server.env, **changes})
    assert found is not None
    return found


def a_message() -> object:
    return confirmation(
        demo_schedule().conference,
        parse_address("schedule@conf.example.org"),
        TO,
        confirm="https://x/c",
        now=NOW,
        hours=24,
    )


def test_a_message_goes_through_starttls_and_auth_to_its_one_recipient(smtp: SmtpServer) -> None:
    relay = Relay(settings_of(smtp))

    relay.send(a_message(), TO)  # type: ignore[arg-type]
    relay.close()

    (delivered,) = smtp.delivered
    assert (delivered.sender, delivered.recipients) == ("schedule@conf.example.org", (str(TO),))
    assert delivered.message["Subject"] == "Confirm: PyTorch Conference Europe 2026 schedule invitations"


def test_a_wrong_password_is_the_relays_refusal_not_the_addresss(smtp: SmtpServer) -> None:
    relay = Relay(settings_of(smtp, CONFCAL_SMTP_PASSWORD="wrong"))

    with pytest.raises(RelayRefused) as refused:
        relay.send(a_message(), TO)  # type: ignore[arg-type]

    assert str(refused.value) == "the mail relay refused the login (535)"
    assert smtp.delivered == []


def test_a_550_is_permanent_and_its_text_names_no_address(smtp: SmtpServer) -> None:
    smtp.refuse(str(TO), f"550 5.1.1 <{TO}>: no such user ada.lovelace")
    relay = Relay(settings_of(smtp))

    with pytest.raises(PermanentFailure) as refused:
        relay.send(a_message(), TO)  # type: ignore[arg-type]
    relay.close()

    assert (
        str(refused.value)
        == "the mail relay refused the recipient: 550 5.1.1 <(the address)>: no such user (the address)"
    )
    assert refused.value.code == 550


def test_a_450_is_temporary(smtp: SmtpServer) -> None:
    smtp.refuse(str(TO), "450 4.2.0 greylisted, try again later")
    relay = Relay(settings_of(smtp))

    with pytest.raises(TemporaryFailure) as refused:
        relay.send(a_message(), TO)  # type: ignore[arg-type]
    relay.close()

    assert (type(refused.value), refused.value.code) == (TemporaryFailure, 450)


def test_a_refusal_leaves_the_connection_usable_for_the_next_recipient(smtp: SmtpServer) -> None:
    smtp.refuse(str(TO), "550 no such user")
    relay = Relay(settings_of(smtp))
    other = parse_address("grace@mail.example.net")

    with pytest.raises(PermanentFailure):
        relay.send(a_message(), TO)  # type: ignore[arg-type]
    relay.send(a_message(), other)  # type: ignore[arg-type]
    relay.close()

    assert [d.recipients for d in smtp.delivered] == [(str(other),)]


def test_an_unreachable_relay_is_temporary(tmp_path: Path) -> None:
    settings = mail_settings({"CONFCAL_SMTP_URL": "smtp://127.0.0.1:9", "CONFCAL_MAIL_FROM": "a@conf.example.org"})
    assert settings is not None

    with pytest.raises(TemporaryFailure) as failed:
        Relay(settings).send(a_message(), TO)  # type: ignore[arg-type]

    assert str(failed.value) == "cannot reach the mail relay 127.0.0.1:9: Connection refused"


def test_one_connection_carries_many_messages_and_is_opened_again_once_the_relay_closed_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_smtp(tmp_path, idle=0.5) as smtp:
        monkeypatch.setenv("SSL_CERT_FILE", str(smtp.ca_file))
        relay = Relay(settings_of(smtp))
        relay.send(a_message(), TO)  # type: ignore[arg-type]
        relay.send(a_message(), TO)  # type: ignore[arg-type]
        kept = len(relay._open)

        time.sleep(1.5)  # past the server's idle timeout: it closes the connection
        relay.send(a_message(), TO)  # type: ignore[arg-type]
        relay.close()

    assert kept == 1
    assert len(smtp.delivered) == 3
