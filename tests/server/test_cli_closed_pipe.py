"""A `confcal` whose reader goes away (`confcal history | head -1`) exits quietly, as Unix tools
do: no error line, exit status 141 (128 + SIGPIPE, what a shell reports for `yes | head -1`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from server.store import Store

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = ROOT / "tests" / "fixtures" / "ingest" / "original"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def confcal_into_closed_pipe(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Runs confcal with stdout a pipe whose reading end is already closed, as after `head -1`
    has read its line and exited: every write to it fails."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "server.cli", *args], stdout=write_end, stderr=subprocess.PIPE, env=ENV, timeout=120
        )
    finally:
        os.close(write_end)


def test_history_into_a_closed_pipe_exits_141_without_a_message(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    subprocess.run(
        [sys.executable, "-m", "server.cli", "ingest", "--db", db, "--tz", "Europe/Paris", str(ORIGINAL)],
        check=True,
        capture_output=True,
        env=ENV,
    )

    done = confcal_into_closed_pipe("history", "--db", db)

    assert (done.returncode, done.stderr) == (141, b"")


def test_ingest_into_a_closed_pipe_exits_141_without_a_message_and_keeps_its_version(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")

    done = confcal_into_closed_pipe("ingest", "--db", db, "--tz", "Europe/Paris", "--quiet", str(ORIGINAL))

    assert (done.returncode, done.stderr) == (141, b"")
    with Store.open(db) as store:
        assert [report.version for report in store.history()] == [1]
