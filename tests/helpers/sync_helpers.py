"""Helpers for the CalDAV sync tests (tests/server/jobs, tests/deploy): a store with a schedule and
pick sets, calendars on a real server reached through the counting proxy, queueing syncs as the
attach API does, and what a calendar holds."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from server.caldav.errors import ItemNotFound
from server.crypto import Secret
from server.jobs import jobs_for
from server.store import Store
from server.store.caldav_targets import CaldavTargets, Target
from server.store.caldav_wanted import Wanted
from server.store.picks import PickStore
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.push_helpers import PASSWORD, USER, DavServer, connect, make_schedule, start_of, summary_of

SCHEDULE = make_schedule(4)
SLUG = SCHEDULE.conference.slug


@dataclass(frozen=True)
class Attached:
    token: str
    target: Target
    url: str  # on the server itself, for reading the calendar behind the proxy's back


def attach(
    store: Store, server: DavServer, proxy: DavProxy, sessions: Sequence[str], password: str = PASSWORD
) -> Attached:
    """A pick set of `sessions` (ids in SCHEDULE) and a new calendar attached to it (through
    the proxy)."""
    url = server.new_calendar()
    pickset = PickStore(store.engine).create(SLUG, stored_ids(store, sessions))
    proxied = url.replace(f"http://127.0.0.1:{server.port}", proxy.base)
    target = CaldavTargets(store.engine).attach(SLUG, pickset.token, proxied, USER, Secret(password), datetime.now(UTC))
    return Attached(pickset.token, target, url)


def stored_ids(store: Store, sessions: Sequence[str]) -> list[str]:
    """The store's ids of SCHEDULE's sessions (an ingest gives sessions ids of its own)."""
    live = store.live(SLUG)
    assert live is not None
    by_title = {s.title: s.id for s in live.sessions}
    titles = {s.id: s.title for s in SCHEDULE.sessions}
    return [by_title[titles[i]] for i in sessions]


def bodies(url: str) -> dict[str, bytes]:
    """Resource name -> body of every object in the calendar (one deleted while it is read is
    left out)."""
    storage = connect(url)
    items = {}
    try:
        for name in storage.list():
            try:
                items[name] = storage.get(name).ics
            except ItemNotFound:  # deleted by a sync running while the test looks
                pass
    finally:
        storage.close()
    return items


def calendar(url: str) -> dict[str, tuple[str, datetime]]:
    """Resource name -> (SUMMARY, start) of every event in the calendar."""
    return {name: (summary_of(ics), start_of(ics)) for name, ics in bodies(url).items()}


def start_of_title(url: str, title: str) -> datetime:
    (start,) = [start for summary, start in calendar(url).values() if summary == title]
    return start


def summaries(url: str) -> list[str]:
    return sorted(summary for summary, _ in calendar(url).values())


def target(store: Store, target_id: int) -> Target:
    found = CaldavTargets(store.engine).get(target_id)
    assert found is not None
    return found


def queue_syncs(db: str, targets: Sequence[int]) -> None:
    """What the attach API does after storing a target: queue its sync (in the store at `db`)."""
    with Store.open(db) as store:
        jobs = jobs_for(store)
        try:
            for target_id in targets:
                found = CaldavTargets(store.engine).get(target_id)
                assert found is not None
                jobs.queue_sync(Wanted(target_id, found.wanted_generation))
        finally:
            jobs.queue.storage.close()


def synced(db: str, targets: Sequence[int]) -> bool:
    """Every target is up to the generation it wants, and no sync holds it."""
    with Store.open(db) as store:
        rows = [CaldavTargets(store.engine).get(t) for t in targets]
    return all(r is not None and r.lease_owner is None and r.synced_generation == r.wanted_generation for r in rows)


def wait_for(condition: Callable[[], bool]) -> bool:
    for _ in range(900):  # bounded wait (~90 s on a busy machine); not a timing assertion
        if condition():
            return True
        time.sleep(0.1)
    return False
