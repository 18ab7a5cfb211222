"""What importing a module loads, read in a fresh interpreter: for the tests that pin a layer's or
a process's imports (the pure CalDAV planner, a server process, the jobs `confcal serve` starts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded(
    module: str, *, packages: tuple[str, ...] = (), modules: tuple[str, ...] = (), prefixes: tuple[str, ...] = ()
) -> list[str]:
    """The modules importing `module` loads that are in one of `packages` (top-level names), are
    one of `modules`, or start with one of `prefixes`; sorted."""
    code = (
        f"import sys, {module}; "
        f"print(*sorted(m for m in sys.modules if m.split('.')[0] in {packages!r} or m in {modules!r} "
        f"or m.startswith({prefixes!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return done.stdout.split()
