"""Catalogue feeds rendered off the event loop when a request gets to them first.

The server swaps a new snapshot in before its feeds are rendered and warms them in a worker
thread (server.snapshot.live). A request for a feed the warm-up has not reached yet must not render
it on the event loop: all.ics of a 10,000-session conference takes about half a second, and
every other request (a health check, a 304 of another feed) would wait for it. So the feed
route renders such a feed in a worker thread, and requests for the same feed that arrive while
it renders wait for that one render instead of starting their own: one worker thread per feed
being rendered, however many requests ask for it (each would otherwise hold a thread, blocked on
the feed's lock, out of the pool every other off-loop call shares). The feed's own lock
(server.snapshot.published.Feed) still makes the render happen once across threads, the warm-up's
included.
"""

from __future__ import annotations

import anyio
import anyio.to_thread

from server.snapshot.conditional import Representation
from server.snapshot.published import Feed


class FeedRenders:
    """The renders in progress, by feed; used from the event loop's thread only."""

    def __init__(self) -> None:
        self._pending: dict[Feed, anyio.Event] = {}

    async def representation(self, feed: Feed) -> Representation:
        """`feed.representation`, rendered in a worker thread unless it is already made."""
        while (made := feed.made()) is None:
            pending = self._pending.get(feed)
            if pending is not None:
                # Rendered when it is set, unless that render failed: then the loop starts
                # another, which raises in this request too.
                await pending.wait()
                continue
            done = self._pending[feed] = anyio.Event()
            try:
                return await anyio.to_thread.run_sync(_render, feed)
            finally:
                del self._pending[feed]
                done.set()
        return made


def _render(feed: Feed) -> Representation:
    return feed.representation
