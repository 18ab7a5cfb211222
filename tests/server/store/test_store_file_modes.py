"""The store file confcal creates holds pick tokens and encrypted CalDAV passwords: it and its
-wal and -shm files are readable by their owner only (0600), and the default folder is 0700."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from feeds.demo import DEMO_TZ, demo_sources
from feeds.pipeline import load_schedule
from server.store import Store

ROOT = Path(__file__).resolve().parents[3]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_store_file_and_its_wal_and_shm_are_0600(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    before = os.umask(0o022)
    try:
        with Store.open(str(path)) as store:
            store.ingest(load_schedule(demo_sources(), DEMO_TZ).schedule)
            modes = {name: mode(tmp_path / name) for name in ("store.sqlite", "store.sqlite-wal", "store.sqlite-shm")}
    finally:
        os.umask(before)

    assert modes == {"store.sqlite": 0o600, "store.sqlite-wal": 0o600, "store.sqlite-shm": 0o600}


def test_the_default_store_folder_is_0700_and_its_file_0600(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CONFCAL_DB"}
    env |= {"PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    demo = [str(source) for source in demo_sources()]

    subprocess.run(
        [sys.executable, "-m", "server.cli", "ingest", "--tz", DEMO_TZ, "--quiet", *demo],
        check=True,
        capture_output=True,
        env=env,
        umask=0o022,
    )

    folder = tmp_path / "data" / "confcal"
    assert (mode(folder), mode(folder / "confcal.sqlite")) == (0o700, 0o600)


def test_a_store_file_that_exists_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with Store.open(str(path)):
        pass
    path.chmod(0o640)

    with Store.open(str(path)) as store:
        store.ingest(load_schedule(demo_sources(), DEMO_TZ).schedule)

    assert mode(path) == 0o640
