"""The `confcal` program (`server.cli.entry`): commands that leave without the interpreter's
teardown still print everything and exit with their status."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Buffered output, as a shell gives a program whose output goes into a pipe.
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, "PYTHONPATH": str(ROOT)}


def confcal(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.cli", *args], capture_output=True, text=True, env=ENV)


def test_a_failed_build_exits_1_with_its_one_line_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")

    done = confcal("build", "--db", str(tmp_path / "s.sqlite"), "--base-url", "https://x.org", str(blocker / "site"))

    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (1, "", 1)
    assert done.stderr.startswith("confcal build: error: ")


def test_a_build_prints_its_summary_into_a_pipe(tmp_path: Path) -> None:
    done = confcal("build", "--db", str(tmp_path / "s.sqlite"), "--base-url", "https://x.org", str(tmp_path / "site"))

    assert (done.returncode, done.stderr) == (0, "")
    found = re.fullmatch(
        r"confcal build: 1 conference\(s\), 60 feeds, 28 sessions; ([0-9]+) files checked, ([0-9]+) written to (.*)\n",
        done.stdout,
    )
    assert found is not None
    assert found[3] == str(tmp_path / "site")
    assert min(int(found[1]), int(found[2])) > 0


def test_a_build_under_cprofile_leaves_its_profile(tmp_path: Path) -> None:
    profile = tmp_path / "build.prof"
    command = ["-m", "cProfile", "-o", str(profile), "-m", "server.cli", "build", "--db", str(tmp_path / "s.sqlite")]

    done = subprocess.run([sys.executable, *command, str(tmp_path / "site")], capture_output=True, env=ENV)

    assert (done.returncode, profile.is_file()) == (0, True)
