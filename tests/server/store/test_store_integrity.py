"""A damaged SQLite store (8 KiB overwritten in the middle of the file) stops `confcal serve` and
`confcal ingest` with one line naming the file and what to do; `confcal db check` runs SQLite's
full check and says ok or what is wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from feeds.demo import DEMO_TZ, demo_sources
from server.store import integrity

ROOT = Path(__file__).resolve().parents[3]
FOSDEM = Path("/work/shared/data/fosdem_2025_schedule.xml")
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
# 8 KiB of a fixed pattern, not random bytes: the same damage on every run.
GARBAGE = bytes((i * 7 + 13) % 256 for i in range(8192))


def confcal(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args], capture_output=True, text=True, env=ENV, timeout=timeout
    )


def damaged_message(path: Path) -> str:
    return "restore it from a backup, or run `confcal db check --db " + str(path) + "` to see what is wrong\n"


@pytest.fixture(scope="module")
def intact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real store of 943 sessions (a file of a few MB), written by `confcal ingest`."""
    if not FOSDEM.exists():
        pytest.skip("test data /work/shared/data is not here")
    path = tmp_path_factory.mktemp("intact") / "store.sqlite"
    done = confcal("ingest", "--db", str(path), "--quiet", str(FOSDEM))
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture
def damaged(intact: Path, tmp_path: Path) -> Path:
    path = tmp_path / "store.sqlite"
    data = bytearray(intact.read_bytes())
    middle = len(data) // 2 // 4096 * 4096
    data[middle : middle + len(GARBAGE)] = GARBAGE
    path.write_bytes(bytes(data))
    path.chmod(0o600)
    return path


def test_an_ingest_into_a_damaged_store_stops_with_one_line_and_writes_nothing(damaged: Path) -> None:
    before = damaged.read_bytes()

    done = confcal("ingest", "--db", str(damaged), "--tz", DEMO_TZ, "--quiet", *map(str, demo_sources()))

    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(f"confcal ingest: error: store {damaged} is damaged (")
    assert done.stderr.endswith(damaged_message(damaged))
    assert done.stderr.count("\n") == 1
    assert damaged.read_bytes() == before


def test_serve_on_a_damaged_store_stops_with_one_line(damaged: Path, tmp_path: Path) -> None:
    with (tmp_path / "out").open("wb") as out, (tmp_path / "err").open("wb") as err:
        # A session of its own: a serve that did start has worker processes to stop as well.
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--db", str(damaged), "--port", "0", "--no-jobs"],
            stdout=out,
            stderr=err,
            env=ENV,
            start_new_session=True,
        )
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail("confcal serve started on a damaged store")
    stderr = (tmp_path / "err").read_text()

    assert (process.returncode, (tmp_path / "out").read_text()) == (1, "")
    assert stderr.startswith(f"confcal serve: error: store {damaged} is damaged (")
    assert stderr.endswith(damaged_message(damaged))
    assert stderr.count("\n") == 1


def test_db_check_names_what_is_wrong_with_a_damaged_store(damaged: Path) -> None:
    done = confcal("db", "check", "--db", str(damaged))

    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines()[0] == f"{damaged} is damaged; restore it from a backup. SQLite found:"
    assert len(done.stdout.splitlines()) >= 2


def test_db_check_of_an_intact_store_says_ok(intact: Path) -> None:
    done = confcal("db", "check", "--db", str(intact))

    assert (done.returncode, done.stdout, done.stderr) == (0, f"{intact}: ok\n", "")


def test_a_check_of_an_intact_store_passes(intact: Path) -> None:
    checking = integrity.Check(str(intact))

    checking.verdict()  # StoreDamaged if the check found anything


def test_a_check_of_a_damaged_store_names_the_file_and_what_to_do(damaged: Path) -> None:
    checking = integrity.Check(str(damaged))

    with pytest.raises(integrity.StoreDamaged) as raised:
        checking.verdict()

    assert str(raised.value).startswith(f"store {damaged} is damaged (")
    assert str(raised.value).endswith(damaged_message(damaged).removesuffix("\n"))


def test_a_check_of_a_store_file_not_made_yet_passes(tmp_path: Path) -> None:
    checking = integrity.Check(str(tmp_path / "new.sqlite"))

    checking.verdict()  # StoreDamaged if the check found anything
    assert not (tmp_path / "new.sqlite").exists()
