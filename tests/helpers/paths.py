"""Where the tests' files are: the repository's own fixtures and `../shared` beside it."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def _shared_dir() -> Path:
    """`../shared` from the repository root; from a git worktree, the one beside the main checkout
    (a worktree's `.git` file names `<main>/.git/worktrees/<name>`)."""
    candidates = [ROOT.parent / "shared"]
    git = ROOT / ".git"
    if git.is_file():
        gitdir = Path(git.read_text(encoding="utf-8").partition("gitdir:")[2].strip())
        candidates.append(gitdir.parents[2].parent / "shared")
    return next((c for c in candidates if c.is_dir()), candidates[0])


SHARED = _shared_dir()


# Where Debian keeps the administration tools the tests' servers are started with: `runuser` (the
# PostgreSQL cluster as root) and `saslpasswd2` (../shared's Cyrus script). A user's shell, `su`
# without `-` and `sudo` without its secure_path leave them off PATH, and the suite should not
# depend on which shell started it.
SYSTEM_TOOLS = ("/usr/local/sbin", "/usr/sbin", "/sbin")


def with_system_tools(path: str) -> str:
    """`path` (a PATH value) with every directory of `SYSTEM_TOOLS` it lacks added after its own,
    so a tool the user's PATH already finds stays the one found."""
    have = path.split(os.pathsep) if path else []
    return os.pathsep.join(have + [tool for tool in SYSTEM_TOOLS if tool not in have])
