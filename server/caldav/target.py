"""What a push is pointed at and how: the calendar (URL and credentials), which sessions, and the
options of a run. Secrets are value types whose repr and str never show them, so a password or a
pick token cannot reach a log line, an error message or a traceback's locals by accident.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from server.caldav.retry import DEFAULT_RETRY, RetryPolicy
from server.crypto import Password

# The operator's switch for calendars on private addresses, read by the attach API and the sync
# jobs alike (one name, one rule).
ALLOW_PRIVATE_ENV = "CONFCAL_CALDAV_ALLOW_PRIVATE"


# An e-mail address as attendees type it: the part after the last "@" is the provider's domain.
_EMAIL = re.compile(r"[^@\s/:]+@([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)")


def server_address(given: str) -> str:
    """Where discovery starts for what an attendee typed: an e-mail address stands for its
    domain's https root (whose well-known URI is asked); anything else is taken as a URL. No SRV
    lookup (RFC 6764 section 3): its answer could name any host."""
    email = _EMAIL.fullmatch(given.strip())
    return f"https://{email.group(1).lower()}/" if email is not None else given


def allow_private_calendars(environ: Mapping[str, str] | None = None) -> bool:
    # Only "1" allows; unset reads as "".
    return (os.environ if environ is None else environ).get(ALLOW_PRIVATE_ENV, "") == "1"


@dataclass(frozen=True)
class Target:
    """One calendar collection. `id` is the caller's name for it in logs (the attach side's row
    id); without one, logs name the URL. The URL must not carry a password (BadCalendarUrl)."""

    url: str
    username: str | None = None
    password: Password | None = None
    id: str | None = None


@dataclass(frozen=True)
class PickToken:
    """The sessions picked under a token (server.store.picks); the token is a secret."""

    token: str = field(repr=False)


@dataclass(frozen=True)
class SessionIds:
    """Sessions named explicitly (`confcal push --session`)."""

    ids: tuple[str, ...]


Selection = PickToken | SessionIds


@dataclass(frozen=True)
class SyncOptions:
    """How a run behaves.

    - `overwrite`: `--on-conflict overwrite`, replace the owner's edits of our events;
    - `retry`: backoff for 5xx, 429 and broken connections within one run;
    - `allow_private`: lift the outbound address rules (loopback, private networks...) for an
      operator who means it (`confcal push --allow-private`, `CONFCAL_CALDAV_ALLOW_PRIVATE=1`);
    - `timeout`: seconds for any one connect, read or write;
    - `deadline`: seconds for everything one run sends, so a server dripping bytes cannot hold a
      worker; None for no bound;
    - `lock_wait`: seconds to wait while another sync holds the same calendar (server.caldav.lock)
      before giving up with CalendarBusy; 0 to give up at once (a job queue may rather retry).
    - `lock_ttl`: how long the calendar stays held if this process dies mid-sync where no waiter
      can tell it died (another host); a heartbeat renews the lease while the sync runs, and a
      waiter on the same host takes over from a dead holder at once (server.caldav.lock).
      `confcal push` uses the lock's short TTL; the sync jobs pass their own lease.
    """

    overwrite: bool = False
    retry: RetryPolicy = DEFAULT_RETRY
    allow_private: bool = False
    timeout: float = 20.0
    deadline: float | None = 600.0
    lock_wait: float = 300.0
    lock_ttl: float = 180.0
