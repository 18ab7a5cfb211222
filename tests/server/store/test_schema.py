"""The store's schema through Alembic: the revisions build exactly the tables the code declares,
on SQLite and PostgreSQL; SQLite stores upgrade themselves, PostgreSQL stores wait for
`confcal db upgrade`; several processes upgrading one store at once do it once."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, text

from server.cli import main
from server.store import Store, schema
from server.store.schema import StoreOutdated
from server.store.tables import metadata
from tests.helpers.store_builders import bare_postgres, empty_postgres

REPO = Path(__file__).resolve().parents[3]


def differences(engine: Engine) -> list[Any]:
    """What autogenerate would change to make the database match server.store.tables."""
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(context, metadata))


def test_the_revisions_have_one_head() -> None:
    assert schema.head() == schema._scripts().get_current_head()


def test_the_head_ensure_knows_without_alembic_is_alembics_head() -> None:
    # A new revision must update schema.HEAD, or `ensure` would take a store at the old head
    # for up to date.
    assert schema.HEAD == schema.head()


def test_revisions_build_the_declared_schema_on_sqlite(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "new.sqlite")) as store:
        found = (schema.current(store.engine), differences(store.engine))

    assert found == (schema.head(), [])


def test_revisions_build_the_declared_schema_on_postgres(pg_url: str) -> None:
    engine = create_engine(empty_postgres(pg_url))
    try:
        found = (schema.current(engine), differences(engine))
    finally:
        engine.dispose()

    assert found == (schema.head(), [])


def test_postgres_store_waits_for_db_upgrade(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    url = bare_postgres(pg_url)
    with pytest.raises(StoreOutdated) as refused:
        Store.open(url)

    code = main(["db", "upgrade", "--db", url])
    with Store.open(url) as store:
        version = store.version()

    assert str(refused.value).endswith(
        f"has schema revision none and this confcal needs {schema.head()}: run `confcal db upgrade` with the same --db"
    )
    assert "\n" not in str(refused.value)
    assert (code, version) == (0, 0)
    assert capsys.readouterr().out.endswith(f"from no revision to {schema.head()}\n")


def test_a_command_on_an_outdated_postgres_store_stops_with_one_line(
    pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = bare_postgres(pg_url)

    code = main(["history", "--db", url])

    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("confcal history: error: the store at postgresql+psycopg://")
    assert err.endswith("run `confcal db upgrade` with the same --db\n")
    assert err.count("\n") == 1


def test_sqlite_store_upgrades_itself_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "store.sqlite"
    Store.open(str(path)).close()

    main(["db", "upgrade", "--db", str(path)])
    main(["db", "current", "--db", str(path)])

    head = schema.head()
    assert capsys.readouterr().out == (
        f"sqlite:///{path} is up to date ({head})\nsqlite:///{path}: {head} (up to date; this confcal needs {head})\n"
    )


def test_db_current_fails_on_a_store_that_needs_upgrade(pg_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    url = bare_postgres(pg_url)

    code = main(["db", "current", "--db", url])

    assert code == 1
    assert capsys.readouterr().out.endswith(
        f": no revision (needs `confcal db upgrade`; this confcal needs {schema.head()})\n"
    )


def test_a_store_upgraded_by_a_newer_confcal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite"
    Store.open(str(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")

    with pytest.raises(StoreOutdated, match="revision 9999_from_the_future, unknown to this confcal"):
        Store.open(str(path))


def test_a_pre_migration_store_with_only_some_tables_gets_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "partial.sqlite"
    Store.open(str(path)).close()
    with sqlite3.connect(path) as conn:  # a store made before the picks and CalDAV tables existed
        conn.execute("DROP TABLE alembic_version")
        conn.execute("DROP TABLE personal_picks")
        conn.execute("DROP TABLE caldav_sync_state")

    with Store.open(str(path)) as store:
        found = (schema.current(store.engine), differences(store.engine))

    assert found == (schema.head(), [])


# Each process imports everything first, says "ready", and upgrades once the start file appears,
# so the upgrades meet inside the lock rather than one after another.
RACER = """
import sys, time
from pathlib import Path
from server.store import schema
from server.store.engine import make_engine
go = Path(sys.argv[2])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
done = schema.upgrade(make_engine(sys.argv[1]))
print(done.before or "none", flush=True)
"""


def race(url: str, tmp_path: Path, script: str = RACER, count: int = 4) -> list[str]:
    """Run `script` in `count` processes started at once on the store at `url`; their last lines."""
    go = tmp_path / "go"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", script, url, str(go)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(count)
    ]
    for racer in racers:
        assert racer.stdout is not None and racer.stdout.readline() == "ready\n"
    go.touch()
    outputs = [racer.communicate(timeout=120)[0] for racer in racers]
    assert [racer.returncode for racer in racers] == [0] * count, outputs
    return sorted(output.splitlines()[-1] for output in outputs)


def test_processes_upgrading_a_new_sqlite_store_at_once_upgrade_it_once(tmp_path: Path) -> None:
    path = tmp_path / "raced.sqlite"

    befores = race(f"sqlite:///{path}", tmp_path)

    assert befores == sorted(["none"] + [schema.head()] * 3)


def test_processes_upgrading_a_new_postgres_store_at_once_upgrade_it_once(pg_url: str, tmp_path: Path) -> None:
    url = bare_postgres(pg_url)

    befores = race(url, tmp_path)

    assert befores == sorted(["none"] + [schema.head()] * 3)


QUEUE_RACER = """
import sys, time
from pathlib import Path
from server.jobs.queue import open_queue
go = Path(sys.argv[2])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
queue = open_queue(sys.argv[1])
queue.storage.close()
print("opened", flush=True)
"""


def test_processes_opening_the_job_queue_at_once_on_postgres_all_start(pg_url: str, tmp_path: Path) -> None:
    url = empty_postgres(pg_url)

    opened = race(url, tmp_path, QUEUE_RACER)

    engine = create_engine(url)
    with engine.connect() as conn:
        tables = conn.execute(text("SELECT tablename FROM pg_tables WHERE tablename LIKE 'job%' ORDER BY 1")).scalars()
        names = list(tables)
    engine.dispose()
    assert opened == ["opened"] * 4
    assert names == ["job_counter", "job_kv", "job_schedule", "job_task"]


def test_processes_opening_the_job_queue_at_once_on_sqlite_all_start(tmp_path: Path) -> None:
    path = tmp_path / "queue.sqlite"
    Store.open(str(path)).close()

    opened = race(f"sqlite:///{path}", tmp_path, QUEUE_RACER)

    assert opened == ["opened"] * 4


def test_db_current_creates_no_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "missing.sqlite"

    code = main(["db", "current", "--db", str(path)])

    assert (code, path.exists()) == (1, False)
    assert capsys.readouterr().err == f"confcal db: error: no store at {path}\n"
