"""Progress of `ingest`, `build` and `export`: drawn on a terminal (a real pty), never
into pipes or with --quiet, and every command still ends with its summary line."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

CHANGES = Path(__file__).resolve().parents[2] / "fixtures" / "changes"
V1 = str(CHANGES / "v1.ics")
INGESTED = "version 1: 7 added, 0 changed, 0 cancelled, 0 restored, 0 unchanged"
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}


def confcal(*args: str) -> list[str]:
    return [sys.executable, "-m", "server.cli", *args]


def in_pty(argv: list[str]) -> str:
    """Run `argv` with stdout and stderr on one pseudo-terminal (80x24); everything it drew."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower, env=ENV)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait() == 0
    return b"".join(chunks).decode("utf-8")


def printed(drawn: str) -> list[str]:
    """The lines left on the screen: the progress line is redrawn with `\r` and wiped at the end."""
    lines = drawn.split("\r\n")
    return [line.split("\r")[-1] for line in lines]


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "store.sqlite")
    subprocess.run(confcal("ingest", "--db", path, V1), check=True, capture_output=True, env=ENV)
    return path


def test_ingest_into_pipes_prints_only_its_summary(tmp_path: Path) -> None:
    done = subprocess.run(
        confcal("ingest", "--db", str(tmp_path / "s.sqlite"), V1), capture_output=True, text=True, env=ENV
    )

    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[:2] == [
        "Change Conf 2026: 7 sessions, 0 speakers, 2 rooms, 1 track, 0 levels",
        INGESTED,
    ]


def test_build_and_export_into_pipes_print_only_their_summaries(db: str, tmp_path: Path) -> None:
    built = subprocess.run(
        confcal("build", "--db", db, "--base-url", "https://cal.example.org", str(tmp_path / "site")),
        capture_output=True,
        text=True,
        env=ENV,
    )
    exported = subprocess.run(
        confcal("export", "--db", db, "--format", "ics", str(tmp_path / "all.ics")),
        capture_output=True,
        text=True,
        env=ENV,
    )

    assert (built.returncode, built.stderr, built.stdout.count("\n")) == (0, "", 1)
    assert built.stdout.startswith("confcal build: 1 conference(s), ")
    assert (exported.returncode, exported.stdout) == (0, "")
    assert exported.stderr.startswith("confcal export: change-conf-2026, ics, ")
    assert exported.stderr.count("\n") == 1


def test_ingest_on_a_terminal_shows_progress_then_the_summary(tmp_path: Path) -> None:
    drawn = in_pty(confcal("ingest", "--db", str(tmp_path / "s.sqlite"), V1))

    assert "confcal ingest: reading 1 source 0/2 |" in drawn
    assert "confcal ingest: storing change-conf-2026 1/2 |" in drawn
    assert printed(drawn)[:2] == ["Change Conf 2026: 7 sessions, 0 speakers, 2 rooms, 1 track, 0 levels", INGESTED]


def test_build_and_export_on_a_terminal_show_progress(db: str, tmp_path: Path) -> None:
    built = in_pty(confcal("build", "--db", db, "--base-url", "https://cal.example.org", str(tmp_path / "site")))
    exported = in_pty(confcal("export", "--db", db, "--format", "json", str(tmp_path / "out.json")))

    assert "confcal build: writing change-conf-2026 1/2 |" in built
    assert printed(built)[0].startswith("confcal build: 1 conference(s), ")
    assert "confcal export: rendering json 1/3 |" in exported
    assert printed(exported)[0].startswith("confcal export: change-conf-2026, json, ")


def test_quiet_draws_no_progress_on_a_terminal(tmp_path: Path) -> None:
    drawn = in_pty(confcal("ingest", "--quiet", "--db", str(tmp_path / "s.sqlite"), V1))

    assert "confcal ingest:" not in drawn
    assert drawn.startswith(
        "Change Conf 2026: 7 sessions, 0 speakers, 2 rooms, 1 track, 0 levels\r\n" + INGESTED + "\r\n"
    )
