"""A real SMTP server on loopback for the invitation tests: aiosmtpd with STARTTLS (a trustme
certificate) and AUTH (one user), keeping every message it accepts, envelope and all.

`refuse` makes it answer a recipient with a chosen reply (a 450 to try again later, a 550 for
an address that does not exist), as a receiving server would. `env` is what confcal needs to
send through it: the relay URL, the password, the sender, and SSL_CERT_FILE naming the test CA
(Python's default TLS context trusts what it names), for a process or a monkeypatch.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session

USER = "confcal"
PASSWORD = "relay secret"
SENDER = "schedule@conf.example.org"


@dataclass(frozen=True)
class Delivered:
    sender: str
    recipients: tuple[str, ...]
    message: EmailMessage

    def calendar(self) -> bytes:
        """The text/calendar part's bytes, as a calendar client reads them."""
        for part in self.message.walk():
            if part.get_content_type() == "text/calendar":
                data = part.get_payload(decode=True)
                assert isinstance(data, bytes)
                return data
        raise AssertionError("no text/calendar part")

    @property
    def method(self) -> str | None:
        for part in self.message.walk():
            if part.get_content_type() == "text/calendar":
                return str(part.get_param("method"))
        return None


@dataclass
class _Handler:
    delivered: list[Delivered] = field(default_factory=list)
    refuse: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_RCPT(
        self, server: Any, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        reply = self.refuse.get(address.lower())
        if reply is not None:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        parsed = message_from_bytes(content, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        with self.lock:
            self.delivered.append(Delivered(str(envelope.mail_from), tuple(envelope.rcpt_tos), parsed))
        return "250 Message accepted for delivery"


def _authenticate(server: Any, session: Session, envelope: Envelope, mechanism: str, auth_data: Any) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
        USER.encode(),
        PASSWORD.encode(),
    )
    return AuthResult(success=ok, handled=False)


@dataclass
class SmtpServer:
    host: str
    port: int
    ca_file: Path
    handler: _Handler

    @property
    def url(self) -> str:
        return f"smtp://{USER}@{self.host}:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        return {
            "CONFCAL_SMTP_URL": self.url,
            "CONFCAL_SMTP_PASSWORD": PASSWORD,
            "CONFCAL_MAIL_FROM": SENDER,
            "SSL_CERT_FILE": str(self.ca_file),
        }

    @property
    def delivered(self) -> list[Delivered]:
        with self.handler.lock:
            return list(self.handler.delivered)

    def refuse(self, address: str, reply: str) -> None:
        self.handler.refuse[address.lower()] = reply

    def accept(self, address: str) -> None:
        """Take back a `refuse`."""
        self.handler.refuse.pop(address.lower(), None)

    def wait_for(self, count: int, timeout: float = 60.0) -> list[Delivered]:
        """The messages once at least `count` arrived, or what arrived by `timeout` (bounded
        wait for asynchronous delivery, not a timing assertion)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.delivered
            if len(found) >= count:
                return found
            time.sleep(0.05)
        return self.delivered


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def running_smtp(folder: Path, idle: float = 300.0) -> Iterator[SmtpServer]:
    """The server on 127.0.0.1 for the block: STARTTLS required before MAIL, AUTH over TLS only;
    it closes a connection idle for `idle` seconds, as relays do."""
    ca = trustme.CA()
    certificate = ca.issue_cert("127.0.0.1", "localhost")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(context)
    ca_file = folder / "smtp-ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    handler = _Handler()
    port = _free_port()
    controller = Controller(
        handler,
        hostname="127.0.0.1",
        port=port,
        tls_context=context,
        require_starttls=True,
        authenticator=_authenticate,
        auth_require_tls=True,
        timeout=idle,
    )
    controller.start()
    try:
        yield SmtpServer("127.0.0.1", port, ca_file, handler)
    finally:
        controller.stop()
