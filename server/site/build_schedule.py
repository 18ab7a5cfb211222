"""The schedule a static build read of a conference, kept for the next build of it.

Reading every row of a large conference and making its sessions (Store.live) was the largest
single step of a rebuild after one change: a second of CPU at 50,000 sessions, for the one row
that changed. So a build keeps the sessions it read, with the version they were read at and what
wrote each row (RowWrites), as a part of the build record; the next build reads only the rows
written since (Store.read_since, as the server does for a new version) and puts them in place.

The part is kept as it is while the rows written since are few, so a rebuild writes nothing
of it; past a twentieth of the sessions it is made again from what this build read. It is
used only when the version it was read at is still the store's under the same name (a store
or conference made anew names its versions anew), and only with the digest the record gave
it. It is a pickle: only confcal build writes it, into the record's own directory beside OUTDIR,
never published, and whoever could write there could as well write the record or the output.
"""

from __future__ import annotations

import pickle
from typing import Protocol

from feeds.model import Schedule
from server.site.build_output import Output, code_key, digest
from server.store.store import RowWrites, Since

# Rows written since the kept schedule, past which it is made again: a twentieth of its sessions.
_REMADE_PAST = 20


class Rows(Protocol):
    """What the kept schedule needs of server.store.Store."""

    def live(self, conference: str | None = None, writes: RowWrites | None = None) -> Schedule | None: ...

    def read_since(
        self, previous: Schedule, since: int, known: None = None, writes: RowWrites | None = None
    ) -> Since | None: ...


# What the part holds: the last version whose rows it shows, that version's name, the
# schedule and each session's id with the version that wrote its row.
_State = tuple[int, str, Schedule, dict[str, int]]


def read_schedule(store: Rows, output: Output, slug: str, writes: RowWrites) -> Schedule | None:
    """`store.live(slug, writes)`, from the schedule the last build kept and the rows written
    since when it kept one that still holds; kept for the next build."""
    key = digest(code_key(), "schedule", slug)
    kept = _state(output.kept(key))
    if kept is not None:
        since, name, previous, rows = kept
        writes.rows.update(rows)
        found = store.read_since(previous, since, writes=writes)
        if found is not None and writes.versions.get(since) == name:
            if len(found.written) * _REMADE_PAST <= len(found.schedule.sessions):
                output.hold(key)
            else:
                _keep(output, key, found.schedule, writes)
            return found.schedule
        writes.versions.clear()
        writes.rows.clear()
    schedule = store.live(slug, writes)
    if schedule is not None:
        _keep(output, key, schedule, writes)
    return schedule


def _keep(output: Output, key: str, schedule: Schedule, writes: RowWrites) -> None:
    # Every row named was written by the newest version named or one before: the rows
    # written later are read again next time.
    since = max(writes.versions, default=0)
    state: _State = (since, writes.versions.get(since, ""), schedule, dict(writes.rows))
    output.renew(key, pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))


def _state(body: bytes | None) -> _State | None:
    if body is None:
        return None
    try:
        state = pickle.loads(body)  # noqa: S301 - the build's own part, checked by its digest
    except (pickle.UnpicklingError, AttributeError, ImportError, EOFError, TypeError, ValueError):
        return None
    return state if isinstance(state, tuple) and len(state) == 4 else None
