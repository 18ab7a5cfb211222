"""What the attach API asks of a calendar server: is it usable (probe), and remove our events.

A thin layer over the push service that turns its errors into the HTTP status the API answers
with (`CalendarUnusable.status`): 422 for what the attendee can fix (address not allowed,
credentials refused, not a calendar, no such calendar), 502 when the server is unreachable or
failing. The outbound address rules (feeds.outbound) apply unless the operator set
`CONFCAL_CALDAV_ALLOW_PRIVATE=1`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import Engine

from feeds.errors import AddressRefused, FetchError
from feeds.outbound import Policy, checked_addresses
from server.app.caldav_body import WantedCalendar
from server.caldav.dav import DavStorage
from server.caldav.errors import (
    AccessDenied,
    AuthenticationFailed,
    CalDAVError,
    CalendarNotFound,
    NotACalendar,
)
from server.caldav.state import SyncState
from server.caldav.sync import push
from server.errors import ServerError
from server.store.caldav_targets import CaldavTargets, Target

ALLOW_PRIVATE_ENV = "CONFCAL_CALDAV_ALLOW_PRIVATE"
PROBE_TIMEOUT_S = 20


class CalendarUnusable(ServerError):
    """The calendar cannot be used; `status` is what the API answers (422 or 502)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def allow_private_calendars(environ: Mapping[str, str] | None = None) -> bool:
    return (os.environ if environ is None else environ).get(ALLOW_PRIVATE_ENV, "") == "1"


_FIXABLE = (AuthenticationFailed, AccessDenied, CalendarNotFound, NotACalendar)


@dataclass(frozen=True)
class Calendars:
    engine: Engine  # the store's: the sync state of what confcal wrote lives there
    allow_private: bool = False

    def probe(self, wanted: WantedCalendar) -> None:
        self._check_address(wanted.url)
        with _unusable():
            DavStorage.connect(
                wanted.url, wanted.username, wanted.password.reveal(), timeout=PROBE_TIMEOUT_S
            ).close()

    def remove(self, targets: CaldavTargets, target: Target) -> None:
        """Delete the events confcal created in the target's calendar for its conference."""
        credentials = targets.credentials(target.id)
        if credentials is None:
            return
        self._check_address(credentials.url)
        with _unusable():
            storage = DavStorage.connect(
                credentials.url,
                credentials.username,
                credentials.password.reveal(),
                timeout=PROBE_TIMEOUT_S,
            )
            try:
                push(storage, SyncState(self.engine, storage.url, scope=target.conference), [])
            finally:
                storage.close()

    def _check_address(self, url: str) -> None:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        try:
            checked_addresses(parts.hostname or "", port, Policy(allow_private=self.allow_private))
        except AddressRefused as exc:
            reason = str(exc).partition(";")[0]
            raise CalendarUnusable(f"the calendar's address is not allowed: {reason}", 422) from None
        except FetchError as exc:
            raise CalendarUnusable(str(exc), 422) from None


class _unusable:
    """Maps the push service's errors to CalendarUnusable, dropping the chained cause so no
    library frame (which may hold the password in a local) travels with it."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        if isinstance(exc, _FIXABLE):
            raise CalendarUnusable(str(exc), 422) from None
        if isinstance(exc, CalDAVError | FetchError):
            raise CalendarUnusable(str(exc), 502) from None
