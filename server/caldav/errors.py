"""Errors of the CalDAV pusher, one per condition, each printed by the CLI as a single line.

Messages name the calendar URL without any userinfo and never include a password.
"""

from __future__ import annotations

from server.errors import ServerError


class CalDAVError(ServerError):
    """Base of every pusher failure."""


class AuthenticationFailed(CalDAVError):
    """The server answered 401: wrong user name or password (or an app password is required)."""


class AccessDenied(CalDAVError):
    """The server answered 403 for the calendar itself: the account may not use it."""


class CalendarNotFound(CalDAVError):
    """The calendar URL answered 404."""


class NotACalendar(CalDAVError):
    """The URL exists but is not a CalDAV calendar collection (RFC 4791 section 4.2)."""


class BadCalendarUrl(CalDAVError):
    """The calendar URL cannot be used as given: not http(s), or it carries a password."""


class AddressNotAllowed(CalDAVError):
    """The calendar's host resolves to a loopback, private, link-local, multicast or reserved
    address (feeds.outbound.addresses) and private addresses were not allowed explicitly."""


class NoCalDAV(CalDAVError):
    """Discovery found no CalDAV service at the server URL: neither /.well-known/caldav nor the URL
    itself answered PROPFIND with the current user's principal (RFC 6764, RFC 5397)."""


class NoCalendarHome(CalDAVError):
    """The principal names no calendar home (RFC 4791 section 6.2.1) and none was found."""


class NoSuchCalendar(CalDAVError):
    """No calendar, or more than one, of the discovered ones has the name asked for."""


class CannotCreateCalendar(CalDAVError):
    """The server refused to make a new calendar (MKCALENDAR) in the account's home."""


class ServerUnreachable(CalDAVError):
    """The connection failed (refused, reset, timed out) and retries did not help."""


class ServerFailed(CalDAVError):
    """The server kept answering 5xx/429, or answered something the protocol does not allow."""


class TransientError(CalDAVError):
    """A failure worth retrying: 5xx, 429 or a broken connection.

    `retry_after` is the server's Retry-After in seconds when it sent one.
    """

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        unreachable: bool = False,
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.unreachable = unreachable


class PreconditionFailed(CalDAVError):
    """412: If-Match / If-None-Match did not hold (RFC 7232 section 4.2), i.e. someone else wrote."""


class ItemNotFound(CalDAVError):
    """404 for a calendar object resource: it was deleted behind our back."""


class UidConflict(CalDAVError):
    """The server refused a create because another resource already holds this UID: in the
    calendar (CalDAV precondition no-uid-conflict, RFC 4791 section 5.3.2.1), or anywhere in the
    account (Cyrus: unique-scheduling-object-resource, RFC 6638 section 3.2.4.1).

    `holder` is the holding resource's URL when the server named it, `calendar` the display name
    of the calendar that holds it when the server gives one."""

    def __init__(self, message: str, *, holder: str | None = None, calendar: str | None = None) -> None:
        super().__init__(message)
        self.holder = holder
        self.calendar = calendar


class UnknownSession(CalDAVError):
    """A --session ID is not in the live schedule."""


class CalendarBusy(CalDAVError):
    """Another sync of the same calendar is running and did not finish within the wait."""


class LeaseLost(CalDAVError):
    """This sync stalled past its calendar lease and another one took over; it stopped."""


class PicksNotFound(CalDAVError):
    """No pick set is stored under the token (the message never repeats the token)."""


class PicksOfAnotherConference(CalDAVError):
    """The pick set belongs to another conference than the one asked for."""


class PasswordUnavailable(CalDAVError):
    """--password-env names an unset variable, or --password-file cannot be read."""
