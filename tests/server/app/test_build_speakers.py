"""Each speaker page's key a build keeps for the next (build_speakers.py): read back by slug,
the part left as it is when the keys are the same, and none without the last build's record."""

from __future__ import annotations

from pathlib import Path

from server.site.build_output import Output
from server.site.build_speakers import SpeakerKeys

BASE = "0123456789abcdef0123456789abcdef"


def build(root: Path, keys: dict[str, str], base: str = BASE) -> dict[str, str]:
    """One build keeping `keys` (slug -> key, in order): the keys it found from the last build."""
    output = Output(root)
    keeper = SpeakerKeys(output, base)
    last = keeper.last()
    keeper.save(list(keys), list(keys.values()), last)
    output.finish(())
    return last


def part_inodes(root: Path) -> list[int]:
    return [part.stat().st_ino for part in (root.parent / f".{root.name}.confcal-build.parts").iterdir()]


def test_the_next_build_finds_each_slug_key_in_order(tmp_path: Path) -> None:
    build(tmp_path / "site", {"ada": "k1", "bo": "k2"})

    last = build(tmp_path / "site", {"ada": "k1"})

    assert list(last.items()) == [("ada", "k1"), ("bo", "k2")]
    assert build(tmp_path / "site", {}) == {"ada": "k1"}


def test_the_same_keys_leave_the_part_as_it_is_and_others_write_it_again(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build(site, {"ada": "k1", "bo": "k2"})
    first = part_inodes(site)

    build(site, {"ada": "k1", "bo": "k2"})
    same = part_inodes(site)
    build(site, {"ada": "k1", "bo": "k3"})

    assert same == first
    assert part_inodes(site) != first
    assert build(site, {}) == {"ada": "k1", "bo": "k3"}


def test_keys_for_another_base_or_without_the_last_builds_record_are_not_found(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build(site, {"ada": "k1"})

    other = build(site, {"ada": "k1"}, base="another base")
    (tmp_path / ".site.confcal-build.sqlite").unlink()
    unrecorded = build(site, {"ada": "k1"})

    assert (other, unrecorded) == ({}, {})
