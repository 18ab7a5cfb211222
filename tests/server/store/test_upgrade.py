"""`confcal db upgrade` on stores the last confcal before migrations made (main at 764c031; see
tests/fixtures/store/make_pre_migration_store.py): every row is still there, every instant the
same to the second, and the new code reads them all."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from server.caldav.state import SyncState
from server.cli import main
from server.jobs.queue import open_queue
from server.store import Store, schema
from server.store.picks import PickStore
from server.store.sources import Outcome, SourceStore
from tests.helpers.postgres_cluster import _pg_bin
from tests.helpers.store_builders import bare_postgres
from tests.helpers.store_snapshot import snapshot

# What the fixture holds, table by table (make_pre_migration_store.py says what and why).
ROWS = {
    "caldav_sync_state": 6,
    "job_counter": 0,
    "job_kv": 0,
    "job_schedule": 0,
    "job_task": 1,
    "personal_picks": 3,
    "schedule_conference": 2,
    "schedule_session": 30,
    "schedule_source": 2,
    "schedule_version": 4,
}
DEMO = "pytorch-conference-europe-2026"
T2 = datetime(2026, 3, 2, 9, 30, 15, 500000, tzinfo=UTC)
T3 = datetime(2026, 3, 3, 18, 45, 59, 999999, tzinfo=UTC)


def rows_of(url: str) -> dict[str, list[dict[str, Any]]]:
    engine = create_engine(url)
    try:
        return snapshot(engine)
    finally:
        engine.dispose()


def numbered(rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """`rows` as revisions 0007 and 0009 convert them: each conference numbers its own versions in
    the order they were recorded, the sessions name their version by that number, and every
    conference keeps midnight as its day change, and no session has extras yet."""
    numbers: dict[str, dict[int, int]] = {}
    for version in sorted(rows["schedule_version"], key=lambda v: v["id"]):
        counted = numbers.setdefault(version["conference"], {})
        counted[version["id"]] = len(counted) + 1
    versions = [{**v, "number": numbers[v["conference"]][v["id"]]} for v in rows["schedule_version"]]
    sessions = [{**s, "version": numbers[s["conference"]][s["version"]]} for s in rows["schedule_session"]]
    conferences = [{**c, "day_change": "00:00:00"} for c in rows["schedule_conference"]]
    sessions = [{**s, "extras": None} for s in sessions]
    return rows | {"schedule_version": versions, "schedule_session": sessions, "schedule_conference": conferences}


@pytest.fixture
def old_sqlite(fixtures: Path, tmp_path: Path) -> str:
    path = tmp_path / "old.sqlite"
    shutil.copyfile(fixtures / "store" / "pre_migration.sqlite", path)
    return str(path)


@pytest.fixture
def old_postgres(fixtures: Path, pg_url: str) -> Iterator[str]:
    """The dump restored into an empty database whose sessions are not in UTC, so an upgrade
    that read the old naive UTC columns in the session's zone would move every instant."""
    psql = _pg_bin("psql")
    assert psql is not None
    url = bare_postgres(pg_url)
    host = url.split("host=")[1]
    dump = fixtures / "store" / "pre_migration.sql"
    command = [psql, "-q", "-v", "ON_ERROR_STOP=1", "-h", host, "-U", "postgres", "-d", "postgres", "-f", str(dump)]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    _set_zone(url, "'America/New_York'")
    yield url
    _set_zone(url, "DEFAULT")


def _set_zone(url: str, zone: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql(f"ALTER DATABASE postgres SET timezone TO {zone}")
    engine.dispose()


# Rows a later revision writes into a table it adds (0006: the counter changes are numbered from).
NEW_ROWS = {"pick_change_counter": [{"id": 1, "seq": 0}]}


def test_upgrading_a_pre_migration_sqlite_store_keeps_every_row(old_sqlite: str) -> None:
    before = rows_of(f"sqlite:///{old_sqlite}")

    code = main(["db", "upgrade", "--db", old_sqlite])

    after = rows_of(f"sqlite:///{old_sqlite}")
    assert code == 0
    assert {name: len(rows) for name, rows in before.items()} == ROWS
    # Tables later revisions add are there, empty but for the pick change counter's one row;
    # every other table is as it was.
    assert after == numbered(before) | {name: [] for name in after.keys() - before.keys()} | NEW_ROWS


def test_upgrading_a_pre_migration_postgres_store_keeps_every_row(old_postgres: str) -> None:
    before = rows_of(old_postgres)

    code = main(["db", "upgrade", "--db", old_postgres])

    after = rows_of(old_postgres)
    assert code == 0
    assert {name: len(rows) for name, rows in before.items()} == ROWS
    # Tables later revisions add are there, empty but for the pick change counter's one row;
    # every other table is as it was.
    assert after == numbered(before) | {name: [] for name in after.keys() - before.keys()} | NEW_ROWS


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_upgraded_store_reads_back_through_the_code(backend: str, request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue("old_sqlite" if backend == "sqlite" else "old_postgres")
    main(["db", "upgrade", "--db", url])
    rows = rows_of(url if "://" in url else f"sqlite:///{url}")

    with Store.open(url) as store:
        live = {c.slug: c.sessions for c in store.conferences()}
        history = [(r.conference, r.version, r.created) for r in reversed(store.history())]
        picks = PickStore(store.engine)
        sets = {r["token"]: picks.get(r["token"]) for r in rows["personal_picks"]}
        sources = SourceStore(store.engine).all()
        calendars = {
            url: len(SyncState(store.engine, url, scope=scope).rows())
            for url, scope in {(r["calendar_url"], r["scope"]) for r in rows["caldav_sync_state"]}
        }
        queue = open_queue(store.engine.url.render_as_string(hide_password=False))
        pending = queue.pending_count()
        queue.storage.close()
        revision = schema.current(store.engine)

    assert revision == schema.head()
    assert live == {DEMO: 28, "old-con": 2}
    assert [(c, created) for c, _, created in history][-1] == ("old-con", T3)
    assert [c for c, _, _ in history] == [DEMO, DEMO, DEMO, "old-con"]
    assert sorted(len(s.sessions) for s in sets.values() if s is not None) == [0, 2, 2]
    assert sorted(s.updated for s in sets.values() if s is not None) == [T2, T2, T3]
    assert [(s.result, s.last_fetch, s.generation) for s in sources] == [(Outcome.OK, T2, 1), (None, None, 0)]
    assert calendars == {"https://dav.example.org/cal/a/": 4, "https://dav.example.org/cal/b/": 2}
    assert pending == 1
