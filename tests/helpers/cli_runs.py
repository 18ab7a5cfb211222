"""`confcal` as a subprocess on the demo's pages and a changed copy of them, for the tests that
follow versions and conferences through the command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from feeds.demo import DEMO_TZ, demo_sources

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
DEMO = [str(s) for s in demo_sources()]
DEMO_SLUG = "pytorch-conference-europe-2026"
CHANGED_PAGE = ROOT / "tests" / "server" / "app" / "fixtures" / "002_changed.txt"
DEMO_CHANGED = [s for s in DEMO if "002_" not in Path(s).name] + [str(CHANGED_PAGE)]
OTHER = str(ROOT / "tests" / "fixtures" / "changes" / "v1.ics")


def confcal(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args], input=stdin, capture_output=True, text=True, env=ENV, timeout=120
    )


def ingest(db: Path, *sources: str) -> subprocess.CompletedProcess[str]:
    done = confcal("ingest", "--db", str(db), "--tz", DEMO_TZ, "--quiet", *sources)
    assert done.returncode == 0, done.stderr
    return done
