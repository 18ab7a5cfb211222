"""Where the tests' files are: the repository's own fixtures and `../shared` beside it."""

from __future__ import annotations

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
