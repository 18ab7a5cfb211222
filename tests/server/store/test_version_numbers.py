"""Each conference numbers its own versions (1, 2, 3), and an ingest or rollback that changes
nothing records no version and says so; revision 0007 renumbers the versions a store holds."""

from __future__ import annotations

from pathlib import Path

from alembic import command

from server.store import Store, schema
from server.store.engine import make_engine
from tests.helpers.cli_runs import DEMO, DEMO_CHANGED, DEMO_SLUG, OTHER, confcal, ingest


def versions(db: Path) -> list[tuple[str, int]]:
    with Store.open(str(db)) as store:
        return [(r.conference, r.version) for r in store.history()]


def test_reingesting_the_same_sources_records_no_version_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite"
    ingest(db, *DEMO)

    again = ingest(db, *DEMO)

    assert again.stdout.splitlines()[1] == "no change: version 1 stays live"
    assert versions(db) == [(DEMO_SLUG, 1)]


def test_a_repeated_rollback_to_the_live_content_records_no_version(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite"
    ingest(db, *DEMO)
    ingest(db, *DEMO_CHANGED)
    first = confcal("rollback", "--db", str(db), "1")

    again = confcal("rollback", "--db", str(db), "1")

    assert (first.returncode, first.stdout.splitlines()[1].split(":")[0]) == (0, "version 3")
    assert (again.returncode, again.stdout, again.stderr) == (
        0,
        f"{DEMO_SLUG}: no change: version 3 stays live (it has version 1's sessions)\n",
        "",
    )
    assert versions(db) == [(DEMO_SLUG, 3), (DEMO_SLUG, 2), (DEMO_SLUG, 1)]


def test_each_conference_numbers_its_own_versions(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite"
    ingest(db, *DEMO)
    other = ingest(db, OTHER)
    ingest(db, *DEMO_CHANGED)

    history = confcal("history", "--db", str(db), "--conference", DEMO_SLUG)

    other_slug = other.stdout.split(":")[0]
    assert other.stdout.splitlines()[1].startswith("version 1: ")
    assert [line.split()[:2] for line in history.stdout.splitlines()] == [["version", "2"], ["version", "1"]]
    assert [(c == DEMO_SLUG, v) for c, v in versions(db)] == [(True, 2), (False, 1), (True, 1)]
    assert other_slug != DEMO_SLUG


def test_the_upgrade_renumbers_a_stores_versions_per_conference(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite"
    ingest(db, *DEMO)
    ingest(db, OTHER)
    ingest(db, *DEMO_CHANGED)
    assert confcal("rollback", "--db", str(db), "--conference", DEMO_SLUG, "1").returncode == 0
    with Store.open(str(db)) as store:
        before = (store.history(), store.changelog(DEMO_SLUG), store.content(2, DEMO_SLUG))
    engine = make_engine(f"sqlite:///{db}")
    with engine.begin() as conn:  # back to the layout of revision 0006: one global sequence
        command.downgrade(schema.config(conn), "0006_pick_changes")
    with engine.connect() as conn:
        old = [tuple(r) for r in conn.exec_driver_sql("SELECT id, conference FROM schedule_version ORDER BY id")]
    engine.dispose()

    with Store.open(str(db)) as store:  # upgrades it again
        after = (store.history(), store.changelog(DEMO_SLUG), store.content(2, DEMO_SLUG))

    assert [(i, c == DEMO_SLUG) for i, c in old] == [(1, True), (2, False), (3, True), (4, True)]
    assert after == before
    assert [(r.version, r.rollback_of) for r in after[0] if r.conference == DEMO_SLUG] == [(3, 1), (2, None), (1, None)]
