"""The SMTP relay and the sender address, from the environment: without them no invitation is
offered (the API answers 404 and the page hides the option).

    CONFCAL_SMTP_URL            smtp://user@host:587 (STARTTLS) or smtps://user@host:465 (TLS)
    CONFCAL_SMTP_PASSWORD       the relay's password, or
    CONFCAL_SMTP_PASSWORD_FILE  a file holding it (first line), for container secrets
    CONFCAL_MAIL_FROM           the conference's sender address: From and ORGANIZER
    CONFCAL_MAIL_PER_DOMAIN     messages a minute to one receiving domain, per job process

Read from the environment rather than the flags of `serve` and `worker`: the web processes
(which send the confirmation) and the job processes (which send the invitations) both inherit
it, and the password belongs in the environment or a file, never on a command line.

`smtp://` without TLS is refused unless the relay is on this machine (a local Postfix or
Exim that relays onwards): credentials and addresses never cross a network in clear text.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from server.crypto import Password
from server.mail import MailError
from server.mail.address import Address, BadAddress, parse_address

URL_ENV = "CONFCAL_SMTP_URL"
PASSWORD_ENV = "CONFCAL_SMTP_PASSWORD"
PASSWORD_FILE_ENV = "CONFCAL_SMTP_PASSWORD_FILE"
FROM_ENV = "CONFCAL_MAIL_FROM"
PER_DOMAIN_ENV = "CONFCAL_MAIL_PER_DOMAIN"

# Large providers throttle a new sender well below this; a burst of a schedule change to
# thousands of attendees on one provider is spread over minutes rather than refused with 421s.
PER_DOMAIN = 600
TIMEOUT_S = 30.0


class MailSettingsInvalid(MailError):
    """A mail setting is present but cannot be used."""


@dataclass(frozen=True)
class MailSettings:
    host: str
    port: int
    tls: str  # "starttls": upgrade after EHLO; "implicit": TLS from the first byte (smtps)
    username: str | None
    password: Password | None
    sender: Address
    per_domain: int = PER_DOMAIN  # messages a minute to one receiving domain
    timeout: float = TIMEOUT_S

    @property
    def loopback(self) -> bool:
        return _is_loopback(self.host)


def mail_settings(environ: Mapping[str, str] | None = None) -> MailSettings | None:
    """The settings, None when CONFCAL_SMTP_URL or CONFCAL_MAIL_FROM is unset (mail off);
    MailSettingsInvalid (one line naming the variable) when one is set but unusable."""
    env = os.environ if environ is None else environ
    url, sender = env.get(URL_ENV, "").strip(), env.get(FROM_ENV, "").strip()
    if not url or not sender:
        return None
    try:
        address = parse_address(sender)
    except BadAddress as exc:
        raise MailSettingsInvalid(f"${FROM_ENV}: {exc}") from None
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("smtp", "smtps"):
        raise MailSettingsInvalid(f"${URL_ENV}: must start with smtp:// or smtps://")
    try:
        port = parts.port
    except ValueError:
        raise MailSettingsInvalid(f"${URL_ENV}: the port is not a number from 1 to 65535") from None
    host = parts.hostname
    if not host:
        raise MailSettingsInvalid(f"${URL_ENV}: names no host")
    if parts.password is not None:
        raise MailSettingsInvalid(f"${URL_ENV}: holds a password; put it in ${PASSWORD_ENV} or ${PASSWORD_FILE_ENV}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise MailSettingsInvalid(f"${URL_ENV}: only smtp://[user@]host[:port] is understood")
    return MailSettings(
        host=host,
        port=port or (465 if scheme == "smtps" else 587),
        tls="implicit" if scheme == "smtps" else "starttls",
        username=unquote(parts.username) if parts.username else None,
        password=_password(env),
        sender=address,
        per_domain=_per_domain(env),
    )


def _password(env: Mapping[str, str]) -> Password | None:
    if env.get(PASSWORD_ENV):
        return Password(env[PASSWORD_ENV])
    path = env.get(PASSWORD_FILE_ENV, "").strip()
    if not path:
        return None
    try:
        lines = Path(path).expanduser().read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise MailSettingsInvalid(f"${PASSWORD_FILE_ENV}: cannot read {path}: {reason}") from None
    if not lines or not lines[0]:
        raise MailSettingsInvalid(f"${PASSWORD_FILE_ENV}: {path} is empty")
    return Password(lines[0])


def _per_domain(env: Mapping[str, str]) -> int:
    text = env.get(PER_DOMAIN_ENV, "").strip()
    if not text:
        return PER_DOMAIN
    if not text.isdigit() or int(text) == 0:
        raise MailSettingsInvalid(f"${PER_DOMAIN_ENV}: not a positive whole number: {text!r}")
    return int(text)


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
