"""The SMTP relay: the one place invitations leave the server (stdlib smtplib, RFC 5321).

TLS always, by STARTTLS (RFC 3207) on `smtp://` or from the first byte on `smtps://`, with the
certificate checked against the system's roots (`SSL_CERT_FILE` names others); a relay on this
machine may do without when it offers none. AUTH PLAIN or LOGIN when a user name is set, once,
over TLS only (smtplib would send it in clear; the TLS rule above is what guards it).

Each worker thread keeps one connection open between messages (a thousand invitations after
a schedule change need no thousand TLS handshakes), and opens it again once when the relay has
closed it meanwhile. Failures come out in three kinds, which the jobs act on:
- `PermanentFailure`: a 5xx for this recipient or this message; the address is not retried;
- `TemporaryFailure`: a 4xx, a dropped connection, a timeout: retried with a backoff;
- `RelayRefused` (temporary too): the relay refuses us, not the address (login refused, no TLS,
  sender refused): the operator's to fix, so no attendee's invitations stop over it.
Messages name the SMTP code and the relay's words with the address taken out
(server.mail.address.redact): they are stored and shown, and the address must not be.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
import threading
from email.message import EmailMessage

from server.mail import MailError
from server.mail.address import Address, redact
from server.mail.settings import MailSettings

# RFC 5321 section 4.2.2: "Service not available, closing transmission channel".
CLOSING = 421


class SendFailed(MailError):
    """A message was not accepted by the relay."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class TemporaryFailure(SendFailed):
    """Try again later: a 4xx answer, or the relay could not be reached or talked to."""


class PermanentFailure(SendFailed):
    """A 5xx answer for this recipient or message: sending it again will not help."""


class RelayRefused(TemporaryFailure):
    """The relay refuses this server (login, TLS, sender): for the operator, not the attendee."""


class Relay:
    """Sends through the relay of `settings`; safe to share between threads."""

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings
        self._local = threading.local()
        self._open: set[smtplib.SMTP] = set()
        self._lock = threading.Lock()

    def send(self, message: EmailMessage, to: Address) -> None:
        """Hand `message` to the relay for `to` alone (the envelope recipient, RFC 5321 3.3)."""
        for attempt in (1, 2):
            connection = self._connection()
            try:
                connection.send_message(message, from_addr=str(self.settings.sender), to_addrs=[str(to)])
                return
            except smtplib.SMTPServerDisconnected:
                self._drop(connection)
                if attempt == 2:
                    raise TemporaryFailure("the mail relay closed the connection") from None
            except smtplib.SMTPRecipientsRefused as exc:
                self._reset(connection)
                code, said = next(iter(exc.recipients.values()))
                raise _answer(code, said, "refused the recipient", to) from None
            except smtplib.SMTPResponseException as exc:
                if exc.smtp_code == CLOSING and attempt == 1:
                    # The relay closes this connection (idle too long, restarting): take a new one.
                    self._drop(connection)
                    continue
                self._reset(connection)
                if isinstance(exc, smtplib.SMTPSenderRefused):
                    raise RelayRefused(
                        f"the mail relay refused the sender {self.settings.sender}: "
                        f"{_words(exc.smtp_code, exc.smtp_error, to)}",
                        exc.smtp_code,
                    ) from None
                raise _answer(exc.smtp_code, exc.smtp_error, "refused the message", to) from None
            except (smtplib.SMTPException, OSError) as exc:
                self._drop(connection)
                raise TemporaryFailure(f"cannot talk to the mail relay: {type(exc).__name__}") from None

    def close(self) -> None:
        """Quit every open connection (of every thread)."""
        with self._lock:
            connections, self._open = self._open, set()
        for connection in connections:
            try:
                connection.quit()
            except (smtplib.SMTPException, OSError):
                connection.close()
        self._local = threading.local()

    def _connection(self) -> smtplib.SMTP:
        found: smtplib.SMTP | None = getattr(self._local, "connection", None)
        if found is not None:
            return found
        made = self._connect()
        self._local.connection = made
        with self._lock:
            self._open.add(made)
        return made

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        context = ssl.create_default_context()
        # EHLO names this machine by its host name: smtplib's default, getfqdn(), asks DNS and
        # can take seconds where DNS is slow.
        here = socket.gethostname()
        try:
            if s.tls == "implicit":
                connection: smtplib.SMTP = smtplib.SMTP_SSL(
                    s.host, s.port, local_hostname=here, timeout=s.timeout, context=context
                )
            else:
                connection = smtplib.SMTP(s.host, s.port, local_hostname=here, timeout=s.timeout)
        except ssl.SSLError as exc:
            raise RelayRefused(f"TLS with the mail relay {s.host}:{s.port} failed: {exc.reason}") from None
        except (smtplib.SMTPException, OSError) as exc:
            raise TemporaryFailure(f"cannot reach the mail relay {s.host}:{s.port}: {_reason(exc)}") from None
        try:
            self._greet(connection, context)
        except BaseException:
            connection.close()
            raise
        return connection

    def _greet(self, connection: smtplib.SMTP, context: ssl.SSLContext) -> None:
        """EHLO, STARTTLS and AUTH as the settings ask, on a connection just opened."""
        s = self.settings
        try:
            connection.ehlo()
            if s.tls == "starttls" and connection.has_extn("starttls"):
                connection.starttls(context=context)
                connection.ehlo()
            elif s.tls == "starttls" and not s.loopback:
                raise RelayRefused(f"the mail relay {s.host}:{s.port} offers no STARTTLS; it must, or use smtps://")
            if s.username is not None:
                if s.password is None:
                    raise RelayRefused("the mail relay needs a password: CONFCAL_SMTP_PASSWORD(_FILE) is unset")
                _login(connection, s.username, s.password.reveal())
        except smtplib.SMTPAuthenticationError as exc:
            raise RelayRefused(f"the mail relay refused the login ({exc.smtp_code})", exc.smtp_code) from None
        except ssl.SSLError as exc:
            raise RelayRefused(f"TLS with the mail relay {s.host}:{s.port} failed: {exc.reason}") from None
        except (smtplib.SMTPException, OSError) as exc:
            raise TemporaryFailure(f"cannot talk to the mail relay {s.host}:{s.port}: {_reason(exc)}") from None

    def _reset(self, connection: smtplib.SMTP) -> None:
        """After a refusal the transaction is over; RSET so the connection serves the next."""
        try:
            connection.rset()
        except (smtplib.SMTPException, OSError):
            self._drop(connection)

    def _drop(self, connection: smtplib.SMTP) -> None:
        self._local.connection = None
        with self._lock:
            self._open.discard(connection)
        try:
            connection.close()
        except OSError:
            pass


def _login(connection: smtplib.SMTP, username: str, password: str) -> None:
    """One AUTH, PLAIN if offered, else LOGIN (RFC 4954): smtplib's `login` tries each mechanism
    in turn after a refusal, and relays lock an account out after a few refused logins."""
    offered = connection.esmtp_features.get("auth", "").upper().split()
    if "PLAIN" not in offered and "LOGIN" not in offered:
        raise RelayRefused("the mail relay offers neither AUTH PLAIN nor AUTH LOGIN")
    connection.user, connection.password = username, password
    if "PLAIN" in offered:
        connection.auth("PLAIN", connection.auth_plain)
    else:
        connection.auth("LOGIN", connection.auth_login)


def _reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or type(exc).__name__


def _words(code: int, said: bytes | str, to: Address) -> str:
    text = said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)
    return f"{code} {redact(' '.join(text.split()), to)}"


def _answer(code: int, said: bytes | str, what: str, to: Address) -> SendFailed:
    kind = PermanentFailure if 500 <= code < 600 else TemporaryFailure
    return kind(f"the mail relay {what}: {_words(code, said, to)}", code)
