"""One error base for the schedule library; subclasses are named for the condition."""

from __future__ import annotations


class FeedsError(Exception):
    """Base of every error the feeds package raises on bad input."""


class ModelError(FeedsError):
    """A model object would be inconsistent (naive datetime, end before start, empty name)."""


class SourceError(FeedsError):
    """A source cannot be read as a schedule. The message names the file and, where known, the line."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None) -> None:
        where = source or ""
        if source and line is not None:
            where = f"{source}:{line}"
        super().__init__(f"{where}: {message}" if where else message)
        self.reason = message  # without the source: to raise again naming another
        self.source = source
        self.line = line


class FetchError(SourceError):
    """An outbound fetch failed: not an http(s) URL, a host that does not resolve, an HTTP error."""


class AddressRefused(FetchError):
    """An outbound request would reach a loopback, private or otherwise non-public address."""


class LimitExceeded(SourceError):
    """A source (file, device, FIFO or URL) is larger than the size cap, a folder holds too many
    files, or a fetch passed its deadline."""


class DeadlineExceeded(LimitExceeded):
    """A fetch took longer than its overall deadline (a slow or dripping server)."""


class NotASchedule(SourceError):
    """The source is readable text but holds nothing that looks like a schedule."""


class TimeZoneError(SourceError):
    """A time cannot be placed: unknown zone, no zone given, a contradicting abbreviation,
    or a wall time that does not exist in the zone."""


class FilterError(FeedsError):
    """A feed URL's query names a filter that does not exist (e.g. `?rooms=` for `?room=`)."""


class AlarmError(FilterError):
    """A feed URL's `alarm=` is not whole minutes within the allowed range."""
