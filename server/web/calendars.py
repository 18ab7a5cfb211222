"""What the attach API asks of a calendar server, through the push service
(server.caldav.service): is it usable (`probe`), and remove the events confcal put there.

The service's errors become the HTTP status the API answers with (`CalendarUnusable.status`):
422 for what the attendee can fix (a URL that cannot be used, an address not allowed, credentials
refused, no calendar there, not a calendar collection), 502 when the server is unreachable or
failing. The outbound address rules (feeds.outbound, applied by the service's client at connect
time, to the address it checked) hold unless the operator set `CONFCAL_CALDAV_ALLOW_PRIVATE=1`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from feeds.model import Schedule
from server.caldav.errors import (
    AccessDenied,
    AddressNotAllowed,
    AuthenticationFailed,
    BadCalendarUrl,
    CalDAVError,
    CalendarNotFound,
    CannotCreateCalendar,
    NoCalDAV,
    NoCalendarHome,
    NotACalendar,
)
from server.caldav.retry import RetryPolicy
from server.caldav.target import SyncOptions, Target
from server.errors import ServerError
from server.store.caldav_targets import CaldavTargets
from server.store.caldav_targets import Target as StoredTarget
from server.web.caldav_body import WantedAccount, WantedCalendar

if TYPE_CHECKING:
    from server.caldav.discovery import Discovery

# An attendee waits for the probe: one attempt, bounded, instead of the pusher's backoff, and
# done well before a proxy in front of the server gives up on the request (30-60 s is usual).
PROBE_TIMEOUT_S = 5.0
PROBE_DEADLINE_S = 10.0
# Discovery is up to five requests (well-known, its redirect, principal, home, listing).
DISCOVERY_DEADLINE_S = 15.0
REMOVE_DEADLINE_S = 120.0


class CalendarUnusable(ServerError):
    """The calendar cannot be used; `status` is what the API answers (422 or 502)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


_FIXABLE = (
    BadCalendarUrl,
    AuthenticationFailed,
    AccessDenied,
    CalendarNotFound,
    NotACalendar,
    NoCalDAV,
    NoCalendarHome,
    CannotCreateCalendar,
)


@dataclass(frozen=True)
class _Engine:
    """The push service's store, for a removal: only the sync state (in `engine`) is read."""

    engine: Engine

    def live(self, conference: str | None = None) -> Schedule | None:
        return None


@dataclass(frozen=True)
class Calendars:
    engine: Engine  # the store's: the sync state of what confcal wrote lives there
    allow_private: bool = False

    # The push service is imported when a calendar is first attached or removed: its CalDAV
    # client brings caldav, niquests and lxml, slow imports every server process's start would pay otherwise.

    def probe(self, wanted: WantedCalendar) -> None:
        from server.caldav import service

        options = SyncOptions(
            retry=RetryPolicy(attempts=1),
            allow_private=self.allow_private,
            timeout=PROBE_TIMEOUT_S,
            deadline=PROBE_DEADLINE_S,
        )
        with _unusable():
            service.probe(Target(wanted.url, wanted.username, wanted.password), options)

    def discover(self, account: WantedAccount) -> Discovery:
        """The account's calendars, found from its server (server.caldav.discovery)."""
        from server.caldav import discovery

        with _unusable():
            return discovery.discover(
                account.server,
                account.username,
                account.password,
                allow_private=self.allow_private,
                timeout=PROBE_TIMEOUT_S,
                deadline=DISCOVERY_DEADLINE_S,
            )

    def create(self, wanted: WantedCalendar) -> str:
        """Make the calendar `wanted.new_calendar` in the home `wanted.url`; its URL."""
        from server.caldav import discovery

        name = wanted.new_calendar or "confcal"
        with _unusable():
            made = discovery.make_calendar(
                wanted.url,
                name,
                wanted.username,
                wanted.password,
                allow_private=self.allow_private,
                timeout=PROBE_TIMEOUT_S,
                deadline=PROBE_DEADLINE_S,
            )
        return made.url

    def remove(self, targets: CaldavTargets, target: StoredTarget) -> None:
        """Delete the events confcal created in the target's calendar for its conference."""
        from server.caldav import service

        credentials = targets.credentials(target.id)
        if credentials is None:
            return
        options = SyncOptions(allow_private=self.allow_private, deadline=REMOVE_DEADLINE_S)
        calendar = Target(credentials.url, credentials.username, credentials.password, id=str(target.id))
        with _unusable():
            service.remove(_Engine(self.engine), calendar, conference=target.conference, options=options)


class _unusable:
    """Maps the push service's errors to CalendarUnusable; the cause is not chained, so no
    frame that held the password travels with the answer."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        if isinstance(exc, AddressNotAllowed):
            reason = str(exc).partition(";")[0]
            raise CalendarUnusable(f"the calendar's address is not allowed: {reason}", 422) from None
        if isinstance(exc, _FIXABLE):
            raise CalendarUnusable(str(exc), 422) from None
        if isinstance(exc, CalDAVError):
            raise CalendarUnusable(str(exc), 502) from None
