"""A picks change asks for a CalDAV sync of the set's calendar: through the real app and a real
SQLite store, the want is noted in the store (the default, for the jobs' sweep) or, with the
jobs' triggers `confcal serve` passes, a sync job is queued on the store's real Huey queue."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import anyio
import httpx

from feeds.model import Schedule
from server.crypto import Secret
from server.jobs import jobs_for
from server.jobs.triggers import SyncTriggers
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.caldav_wanted import Wanted, wanted
from server.store.picks import PickStore
from server.web.app import create_app
from server.web.sync_requests import SyncRequests
from tests.helpers.app_helpers import NOW


def put_picks(store: Store, sync: SyncRequests | None, token: str, ids: list[str]) -> int:
    app = create_app(store, clock=lambda: NOW, sync=sync)

    async def go() -> int:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await client.put(
                f"/api/picks/{token}",
                content=json.dumps({"sessions": ids}),
                headers={"content-type": "application/json"},
            )
            return response.status_code

    return anyio.run(go)


def attached_set(store: Store, schedule: Schedule, ids: list[str]) -> tuple[str, int]:
    token = create_picks(store, schedule, ids)
    target = CaldavTargets(store.engine).attach(
        schedule.conference.slug, token, "https://dav.example.org/me/cal/", "me", Secret("pw"), datetime.now(UTC)
    )
    return token, target.id


def create_picks(store: Store, schedule: Schedule, ids: list[str]) -> str:
    return PickStore(store.engine).create(schedule.conference.slug, ids).token


def test_a_picks_change_notes_that_its_calendar_wants_a_sync(store: Store, demo_schedule: Schedule) -> None:
    store.ingest(demo_schedule)
    ids = [s.id for s in demo_schedule.sessions]
    token, target = attached_set(store, demo_schedule, ids[:2])

    status = put_picks(store, None, token, ids[1:3])

    assert status == 200
    assert wanted(store.engine) == (Wanted(target, 2),)  # 1 from the attach, 2 from the change


def test_with_the_jobs_triggers_a_picks_change_queues_a_sync(store: Store, demo_schedule: Schedule) -> None:
    store.ingest(demo_schedule)
    ids = [s.id for s in demo_schedule.sessions]
    token, target = attached_set(store, demo_schedule, ids[:2])
    unattached = create_picks(store, demo_schedule, ids[:1])
    jobs = jobs_for(store)

    statuses = [put_picks(store, SyncTriggers(store, jobs), t, ids[1:3]) for t in (token, unattached)]

    pending = [(task.name, task.args) for task in jobs.queue.pending()]
    jobs.queue.storage.close()
    assert statuses == [200, 200]
    assert pending == [("sync_target", (target, 2))]
