"""CalDAV sync as real processes: `confcal serve` fills a calendar attached over its API and keeps
it right through a re-ingest by `confcal ingest` and a picks change over HTTP, with nothing else
asked of it; two
`confcal worker` processes on one store write each change once; a worker killed with SIGKILL in
the middle of a sync is finished later by another, without duplicates. Real Radicale and
Xandikos behind the counting proxy (dav_proxy.py)."""

from __future__ import annotations

from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from feeds.demo import DEMO_DIR, DEMO_TZ
from server.cli import main
from server.crypto import Secret
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.picks import PickStore
from tests.helpers.dav_proxy import DavProxy
from tests.helpers.demo_changes import MOVED_TITLE, OTHER_TITLES, SLUG, moved_pages
from tests.helpers.push_helpers import PASSWORD, USER, DavServer, uid_counts
from tests.helpers.serve_process import running_confcal, running_worker
from tests.helpers.sync_helpers import bodies, calendar, queue_syncs, start_of_title, summaries, synced, wait_for


@pytest.fixture(autouse=True)
def private_calendars(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFCAL_CALDAV_ALLOW_PRIVATE", "1")  # the servers are on loopback


def ids_by_title(db: str) -> dict[str, str]:
    with Store.open(db) as store:
        live = store.live(SLUG)
    assert live is not None
    return {s.title: s.id for s in live.sessions}


def attach(db: str, server: DavServer, proxy: DavProxy, token: str) -> tuple[int, str]:
    """A new calendar attached to pick set `token`: the target id and the calendar's own URL."""
    url = server.new_calendar()
    proxied = url.replace(f"http://127.0.0.1:{server.port}", proxy.base)
    with Store.open(db) as store:
        found = CaldavTargets(store.engine).attach(SLUG, token, proxied, USER, Secret(PASSWORD), datetime.now(UTC))
    return found.id, url


def lease_ran_out(db: str, target: int) -> bool:
    with Store.open(db) as store:
        found = CaldavTargets(store.engine).get(target)
    assert found is not None and found.lease_until is not None  # held by the dead worker
    return found.lease_until < datetime.now(UTC)


def test_serve_keeps_the_calendar_right_through_a_reingest_and_a_picks_change(
    tmp_path: Path, dav_server: DavServer, proxy: DavProxy
) -> None:
    with running_confcal(tmp_path, "--poll", "0.5") as server:
        ids = ids_by_title(server.db)
        created = httpx.post(
            server.url + "/api/picks", json={"sessions": [ids[MOVED_TITLE], ids[OTHER_TITLES[0]]]}
        ).json()
        url = dav_server.new_calendar()
        proxied = url.replace(f"http://127.0.0.1:{dav_server.port}", proxy.base)
        attached = httpx.post(
            server.url + f"/api/picks/{created['token']}/caldav",
            json={"url": proxied, "username": USER, "password": PASSWORD},
        )
        appeared = wait_for(lambda: len(calendar(url)) == 2)
        before = start_of_title(url, MOVED_TITLE)

        code = main(["ingest", "--tz", DEMO_TZ, str(moved_pages(tmp_path)), "--db", server.db])
        moved = wait_for(lambda: start_of_title(url, MOVED_TITLE) != before)
        after = start_of_title(url, MOVED_TITLE)
        replaced = httpx.put(server.url + f"/api/picks/{created['token']}", json={"sessions": [ids[OTHER_TITLES[1]]]})
        changed = wait_for(lambda: summaries(url) == [OTHER_TITLES[1]])

    assert attached.status_code == 201
    assert appeared
    assert code == 0
    assert moved and (after - before).total_seconds() == 3600
    assert replaced.status_code == 200
    assert changed
    assert PASSWORD not in (tmp_path / "serve.log").read_text()


def test_two_workers_on_one_store_write_each_change_once(
    tmp_path: Path, dav_server: DavServer, proxy: DavProxy
) -> None:
    db = str(tmp_path / "store.sqlite")
    assert main(["ingest", "--tz", DEMO_TZ, str(DEMO_DIR), "--db", db]) == 0
    ids = ids_by_title(db)
    with Store.open(db) as store:
        tokens = [
            PickStore(store.engine).create(SLUG, [ids[MOVED_TITLE], ids[OTHER_TITLES[0]]]).token for _ in range(6)
        ]
    attached = [attach(db, dav_server, proxy, token) for token in tokens]
    targets = [target for target, _ in attached]

    with ExitStack() as stack:
        for i in (1, 2):
            stack.enter_context(running_worker(db, tmp_path / f"worker{i}.log", "--threads", "4"))
        queue_syncs(db, targets)
        queue_syncs(db, targets)  # every job twice, as a sweep racing the first jobs would
        first = wait_for(lambda: synced(db, targets))
        assert main(["ingest", "--tz", DEMO_TZ, str(moved_pages(tmp_path)), "--db", db]) == 0
        second = wait_for(lambda: synced(db, targets) and all(len(calendar(url)) == 2 for _, url in attached))
        moved = all(start_of_title(url, MOVED_TITLE).hour == 11 for _, url in attached)  # 13:00 CEST

    assert first and second and moved
    writes = proxy.writes()
    assert len(writes) == 12  # two events in each of six calendars
    assert sorted(writes.values()) == [1] * 6 + [2] * 6  # each created once, the moved one updated once
    logs = "".join((tmp_path / f"worker{i}.log").read_text() for i in (1, 2))
    assert PASSWORD not in logs and not any(token in logs for token in tokens)


def test_a_worker_killed_mid_sync_is_finished_by_another_without_duplicates(
    tmp_path: Path, dav_server: DavServer, proxy: DavProxy
) -> None:
    db = str(tmp_path / "store.sqlite")
    assert main(["ingest", "--tz", DEMO_TZ, str(DEMO_DIR), "--db", db]) == 0
    ids = ids_by_title(db)
    picked = [ids[MOVED_TITLE], *(ids[title] for title in OTHER_TITLES)]
    with Store.open(db) as store:
        token = PickStore(store.engine).create(SLUG, picked).token
    target, url = attach(db, dav_server, proxy, token)
    lease = ("--sync-lease", "2")

    with running_worker(db, tmp_path / "killed.log", *lease) as killed:
        proxy.kill_after_put(killed.pid, 2)  # the second event is stored, its answer never read
        queue_syncs(db, [target])
        code = killed.wait(timeout=120)
    stored_before = len(calendar(url))
    assert wait_for(lambda: lease_ran_out(db, target))  # the next worker's start-up sweep finds it
    with running_worker(db, tmp_path / "next.log", *lease):
        finished = wait_for(lambda: synced(db, [target]))

    assert code == -9
    assert stored_before == 2
    assert finished
    contents = calendar(url)
    assert sorted(summary for summary, _ in contents.values()) == sorted([MOVED_TITLE, *OTHER_TITLES])
    assert sorted(proxy.writes().values()) == [1, 1, 1]  # nothing written twice
    assert set(uid_counts(bodies(url)).values()) == {1}
