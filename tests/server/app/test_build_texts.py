"""Texts a build keeps by name in one part (build_texts.py): the next build renders only the items
whose names the part does not hold, and the part then holds exactly the items asked for; and a
map kept whole for the next build, its part left as it is while the map is the same."""

from __future__ import annotations

from pathlib import Path

from server.site.build_output import Output
from server.site.build_texts import Pieces, decode_pieces, encode_pieces, keep_map, kept_map, kept_pieces

KEY = "0123456789abcdef0123456789abcdef"


def build(root: Path, names: list[str]) -> tuple[list[Pieces], list[str]]:
    """One build asking for the texts of `names`: the texts, and the names it rendered."""
    output = Output(root)
    rendered: list[str] = []

    def render(todo: list[str]) -> list[Pieces]:
        rendered.extend(todo)
        return [(f"<{name}>", f"</{name}>") for name in todo]

    texts = kept_pieces(output, KEY, names, names, render)
    output.finish(())
    return texts, rendered


def test_the_next_build_renders_only_the_names_the_part_does_not_hold(tmp_path: Path) -> None:
    build(tmp_path / "site", ["a", "b", "c"])

    texts, rendered = build(tmp_path / "site", ["a", "d", "c"])

    assert rendered == ["d"]
    assert texts == [("<a>", "</a>"), ("<d>", "</d>"), ("<c>", "</c>")]


def test_the_part_holds_only_the_names_last_asked_for(tmp_path: Path) -> None:
    build(tmp_path / "site", ["a", "b"])
    build(tmp_path / "site", ["a"])

    _, rendered = build(tmp_path / "site", ["a", "b"])

    assert rendered == ["b"]


def test_a_build_without_the_last_builds_record_renders_every_name(tmp_path: Path) -> None:
    build(tmp_path / "site", ["a", "b"])
    (tmp_path / ".site.confcal-build.sqlite").unlink()

    _, rendered = build(tmp_path / "site", ["a", "b"])

    assert rendered == ["a", "b"]


def test_any_text_comes_back_as_it_was_kept() -> None:
    texts = {"x": ("line\nbreak", ""), "y": ("é ✨ \U0001f600", "\x00\r\n"), "z": ("", "")}

    assert decode_pieces(encode_pieces(texts)) == texts
    assert decode_pieces(encode_pieces({})) == {}
    assert decode_pieces(None) == {}


def keep(root: Path, values: dict[str, str]) -> dict[str, str]:
    """One build keeping `values` as a map: the map it found from the last build."""
    output = Output(root)
    last: dict[str, str] = kept_map(output, KEY)
    keep_map(output, KEY, values, last)
    output.finish(())
    return last


def part_inodes(root: Path) -> list[int]:
    return [part.stat().st_ino for part in (root.parent / f".{root.name}.confcal-build.parts").iterdir()]


def test_the_next_build_finds_the_map_a_build_kept(tmp_path: Path) -> None:
    keep(tmp_path / "site", {"ada": "k1", "bo": "k2"})

    found = keep(tmp_path / "site", {"ada": "k1"})

    assert found == {"ada": "k1", "bo": "k2"}
    assert keep(tmp_path / "site", {}) == {"ada": "k1"}


def test_the_same_map_leaves_the_part_as_it_is_and_another_writes_it_again(tmp_path: Path) -> None:
    site = tmp_path / "site"
    keep(site, {"ada": "k1", "bo": "k2"})
    first = part_inodes(site)

    keep(site, {"bo": "k2", "ada": "k1"})
    same = part_inodes(site)
    keep(site, {"ada": "k1", "bo": "k3"})

    assert same == first
    assert part_inodes(site) != first
    assert keep(site, {}) == {"ada": "k1", "bo": "k3"}


def test_a_build_without_the_last_builds_record_finds_no_map(tmp_path: Path) -> None:
    keep(tmp_path / "site", {"ada": "k1"})
    (tmp_path / ".site.confcal-build.sqlite").unlink()

    assert keep(tmp_path / "site", {"ada": "k1"}) == {}
