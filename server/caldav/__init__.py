"""Push a conference's picked sessions into a user's own CalDAV calendar.

The sync core is generic over `DesiredEvent`s and a `Storage` (the calendar collection); the
planner is pure, the executor does the I/O with retries, and the sync-state table remembers what
the pusher created so it only ever touches its own events.
"""
