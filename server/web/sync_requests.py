"""How the app asks for CalDAV syncs without knowing the job queue.

`confcal serve` passes the jobs' triggers (server.jobs.triggers.SyncTriggers), which note the
want in the store and queue a job at once. Without them (an app built for tests or a store with
no queue) `NoteOnly` notes the want, and whatever jobs run on the store find it in their sweep.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import Engine

from server.store.caldav_targets import CaldavTargets


class SyncRequests(Protocol):
    def attached(self, target_id: int) -> None:
        """A calendar was attached (its want is already written)."""

    def picks_changed(self, token: str) -> None:
        """The pick set `token` was saved with other sessions."""

    def invitations_due(self, token: str) -> None:
        """The pick set `token`'s invitations were confirmed: send them."""


class NoteOnly:
    def __init__(self, engine: Engine) -> None:
        self.targets = CaldavTargets(engine)

    def attached(self, target_id: int) -> None:
        pass

    def picks_changed(self, token: str) -> None:
        self.targets.want_sync(token)

    def invitations_due(self, token: str) -> None:
        pass  # the jobs' sweep finds them (server.jobs.invitations)
