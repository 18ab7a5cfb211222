"""The tree keeps the promises the guide makes of its code: formatted, linted, typed.

Each tool reads its settings from pyproject.toml, so this test and a developer's
editor agree on what "clean" means.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "ruff", "format", "--check", "."],
        [sys.executable, "-m", "ruff", "check", "."],
        [sys.executable, "-m", "mypy"],
    ],
    ids=["ruff-format", "ruff-check", "mypy-strict"],
)
def test_the_tree_is_clean(command: list[str]) -> None:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)

    assert done.returncode == 0, done.stdout + done.stderr
