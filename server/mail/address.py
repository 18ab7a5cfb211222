"""E-mail addresses as attendees give them: checked, normalised, masked, and kept out of text.

An address is personal data: it is shown masked (server.store.invitations), never logged, and removed from any
text that may be stored or shown (`redact`), such as a relay's refusal, which often quotes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from server.mail import MailError

# RFC 5321 section 4.5.3.1: 64 octets of local part, 255 of domain, 256 of path with "<>".
MAX_LOCAL = 64
MAX_ADDRESS = 254
# The dot-atom form of RFC 5322 section 3.4.1 for the local part (quoted local parts are legal
# but in practice only spam uses them), a DNS name of at least two labels for the domain.
_LOCAL = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_LABEL = re.compile(r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


class BadAddress(MailError):
    """Not an e-mail address we send to."""


@dataclass(frozen=True)
class Address:
    """A checked address: `local` as given, `domain` in lower case (domains are case-blind,
    RFC 5321 section 2.4; local parts are the receiving server's business)."""

    local: str
    domain: str

    def __str__(self) -> str:
        return f"{self.local}@{self.domain}"


def parse_address(text: str) -> Address:
    """The address in `text` (surrounding blanks ignored), or BadAddress saying what is wrong,
    never quoting the address back (it may end up in a log line)."""
    value = text.strip()
    if not value:
        raise BadAddress("email is empty")
    if len(value) > MAX_ADDRESS:
        raise BadAddress(f"email is longer than {MAX_ADDRESS} characters")
    local, at, domain = value.rpartition("@")
    if not at or not local or not domain:
        raise BadAddress("email must look like name@example.org")
    if len(local) > MAX_LOCAL or _LOCAL.fullmatch(local) is None:
        raise BadAddress("the part before @ holds characters an e-mail address cannot have")
    labels = domain.rstrip(".").split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels) or labels[-1].isdigit():
        raise BadAddress("the part after @ is not a domain name")
    return Address(local, ".".join(labels).lower())


def redact(text: str, address: Address) -> str:
    """`text` with the address and its local part replaced, case-blind, so a relay's answer
    such as "550 <bob@example.org>: no such user" can be stored and shown."""
    for secret in (str(address), address.local):
        text = re.sub(re.escape(secret), "(the address)", text, flags=re.IGNORECASE)
    return text
