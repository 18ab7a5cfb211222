"""What one CalDAV sync did, counted: the one record of it, from the executor's tally through the
push service's result and the sync job to the stored target row and the attach API.

It lives in the store, the lowest layer that keeps it (the target row's `counts`), so the CalDAV
core and the jobs above can use it without importing upward.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace


@dataclass(frozen=True)
class SyncCounts:
    created: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    conflicts: int = 0
    # Of the conflicts, the events the account already holds in another calendar (left alone).
    elsewhere: int = 0
    # 1 when the server ignores If-None-Match / If-Match, so each write was read and compared first.
    checked_writes: int = 0

    def add(self, name: str) -> SyncCounts:
        """One more under `name` (one of `COUNT_NAMES`)."""
        return replace(self, **{name: getattr(self, name) + 1})

    def line(self) -> str:
        """The five outcomes; the two notes above are said in words where they apply."""
        return ", ".join(f"{name} {value}" for name, value in asdict(self).items() if name in OUTCOMES)


COUNT_NAMES = tuple(f.name for f in fields(SyncCounts))
OUTCOMES = ("created", "updated", "deleted", "unchanged", "conflicts")


class WithCounts:
    """For a record that carries its `SyncCounts` as `counts` and its conflicts' own lines as
    `conflicts`: the counts read as the record's own attributes, so callers say `result.created`."""

    counts: SyncCounts

    @property
    def created(self) -> int:
        return self.counts.created

    @property
    def updated(self) -> int:
        return self.counts.updated

    @property
    def deleted(self) -> int:
        return self.counts.deleted

    @property
    def unchanged(self) -> int:
        return self.counts.unchanged

    def line(self) -> str:
        return self.counts.line()
