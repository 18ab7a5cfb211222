"""Every relative link in README.md and docs/*.md names a file that exists and, after `#`, a heading
of that file, with anchors made the way GitHub makes them from headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

# [text](target): the target up to the first space or closing parenthesis; code spans are left out
# first, since a `[x](y)` inside backticks is not a link.
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"```.*?```", re.S)
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.M)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, code marks and punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def anchors(document: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in _HEADING.findall(_FENCE.sub("", document.read_text(encoding="utf-8"))):
        base = anchor(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(document: Path) -> list[str]:
    broken = []
    for target in _LINK.findall(_CODE.sub("", document.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto: are not checked here
            continue
        path, _, fragment = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.exists():
            broken.append(target)
        elif fragment and (linked.suffix != ".md" or fragment not in anchors(linked)):
            broken.append(target)
    return broken


@pytest.mark.parametrize("document", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_every_relative_link_points_at_an_existing_file_and_heading(document: Path) -> None:
    assert broken_links(document) == []


def test_the_anchor_of_a_heading_is_githubs() -> None:
    assert anchor("Stored passwords: encryption and key rotation") == "stored-passwords-encryption-and-key-rotation"
    assert anchor("Background jobs and `confcal worker`") == "background-jobs-and-confcal-worker"
