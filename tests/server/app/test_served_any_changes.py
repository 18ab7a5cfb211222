"""Any sequence of ingests and refreshes (tests/helpers/schedule_changes.py): after each refresh
the server serves, for every conference it holds, what a snapshot made from scratch at the same
clock holds: the same schedule, the same feeds in the same order with the same sessions and
bytes, and the same downloads. The server's snapshots are made from the one before, reading
only the rows written since and patching the feeds those rows change (`Live._refresh`), so this
follows that path through any change."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import settings
from hypothesis.stateful import rule

from server.links import calendar_base
from server.snapshot.live import REBUILD_AFTER, Live
from server.snapshot.published import Published
from tests.helpers.schedule_changes import ScheduleChanges


def served_as(published: Published) -> tuple[object, ...]:
    """What a snapshot serves of a conference, in bytes where it serves bytes."""
    feeds = [(f.spec, f.path, tuple(s.id for s in f.sessions), f.representation.body) for f in published.feeds]
    downloads = {s.id: published.download_body(s) for s in published.schedule.sessions}
    return published.schedule, feeds, downloads


class Serving(ScheduleChanges):
    def __init__(self) -> None:
        super().__init__()
        self.live = self.server()
        self.live.refresh()

    def server(self) -> Live:
        return Live(self.store, base_url=self.base, default=self.default, clock=lambda: self.now)

    def check(self) -> None:
        self.refresh()

    @rule()
    def refresh(self) -> None:
        if (self.live.base_url, self.live.served.default) != (self.base, self.default):
            self.live = self.server()  # the server started again with other options

        self.live.refresh()

        for summary in self.store.conferences():
            served = self.live.current(summary.slug)
            assert self.now - served.now < REBUILD_AFTER + timedelta(minutes=1)
            schedule = self.store.live(summary.slug)
            assert schedule is not None
            base = calendar_base(self.base, summary.slug, self.default)
            fresh = Published(schedule, now=served.now, base_url=base, lazy=True, version=summary.version)
            assert served_as(served) == served_as(fresh)


# Each refresh renders every feed and download of the snapshot it checks, and of a fresh one.
Serving.TestCase.settings = settings(max_examples=50, stateful_step_count=10)
test_after_any_changes_the_server_serves_a_fresh_snapshot = Serving.TestCase
