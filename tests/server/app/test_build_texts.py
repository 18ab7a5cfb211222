"""Texts a build keeps by name in one part (build_texts.py): the next build renders only the items
whose names the part does not hold, and the part then holds exactly the items asked for; a
chunk's texts kept as their places in the file holding the chunk; and a map kept whole for the
next build, its part left as it is while the map is the same."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from server.site.build_bodies import Joined, segment
from server.site.build_output import Output
from server.site.build_texts import ChunkTexts, Pieces, _place, decode_pieces, encode_pieces, keep_map, kept_map

KEY = "0123456789abcdef0123456789abcdef"


def build(root: Path, names: list[str], chunk: str = "day") -> tuple[list[Pieces], list[str]]:
    """One build of `doc`, joined from a head and the chunk `chunk`, which holds the texts of
    `names` in two pieces each (with what stands between them): the texts, and the names it
    rendered. A chunk made again is named anew, as a build names a day by its inputs."""
    output = Output(root)
    rendered: list[str] = []

    def render(todo: Sequence[str]) -> list[Pieces]:
        rendered.extend(todo)
        return [(f"<{name} é>", f"</{name}>") for name in todo]

    keeper = ChunkTexts[str](output, KEY, str)
    given: list[Pieces] = []

    def made() -> bytes:
        given.extend(keeper.pieces(names, render))
        body = "".join(f"{start}text{end}" for start, end in given).encode()
        keeper.keep(chunk, body)
        return body

    piece = output.piece(chunk, made)
    output.put("doc", chunk, lambda: Joined(iter([segment([b"head"]), piece])))
    output.finish(())
    return given, rendered


def test_the_next_build_renders_only_the_names_the_part_does_not_hold(tmp_path: Path) -> None:
    build(tmp_path / "site", ["a", "b", "c"], "day v1")

    texts, rendered = build(tmp_path / "site", ["a", "d", "c"], "day v2")

    assert rendered == ["d"]
    assert texts == [("<a é>", "</a>"), ("<d é>", "</d>"), ("<c é>", "</c>")]
    assert (tmp_path / "site" / "doc").read_bytes() == "head<a é>text</a><d é>text</d><c é>text</c>".encode()


def test_the_part_holds_only_the_names_last_asked_for(tmp_path: Path) -> None:
    build(tmp_path / "site", ["a", "b"], "day v1")
    build(tmp_path / "site", ["a"], "day v2")

    _, rendered = build(tmp_path / "site", ["a", "b"], "day v3")

    assert rendered == ["b"]


def test_a_build_without_the_last_builds_record_renders_every_name(tmp_path: Path) -> None:
    build(tmp_path / "site", ["a", "b"], "day v1")
    (tmp_path / ".site.confcal-build.sqlite").unlink()

    _, rendered = build(tmp_path / "site", ["a", "b"], "day v2")

    assert rendered == ["a", "b"]


def test_any_text_comes_back_as_it_was_kept() -> None:
    texts = {"x": ("line\nbreak", ""), "y": ("é ✨ \U0001f600", "\x00\r\n"), "z": ("", "")}

    assert decode_pieces(encode_pieces(texts)) == texts
    assert decode_pieces(encode_pieces({})) == {}
    assert decode_pieces(None) == {}


# Few letters, so a piece's head recurs before the piece itself (a cut copy of it comes first);
# pieces longer than the head `_place` looks for (a long run), and gaps long enough to put the
# piece beyond where it looks first.
_LETTERS = st.text(alphabet="ab\u2728", max_size=40)


@given(
    before=_LETTERS,
    run=st.integers(min_value=0, max_value=150),
    tail=_LETTERS,
    cut=st.integers(min_value=0, max_value=200),
    gap=st.integers(min_value=0, max_value=5000),
    after=_LETTERS,
    at=st.integers(min_value=0, max_value=60),
)
@settings(max_examples=300, deadline=None)
def test_a_piece_is_placed_where_find_finds_it(
    before: str, run: int, tail: str, cut: int, gap: int, after: str, at: int
) -> None:
    piece = "a" * run + tail
    text = before + piece[:cut] + "b" + "a" * gap + piece + after

    assert _place(text, piece, at) == text.find(piece, at)


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


def test_one_text_an_item_is_its_one_piece(tmp_path: Path) -> None:
    keeper = ChunkTexts[str](Output(tmp_path / "site"), KEY, str)

    texts = keeper.texts(["a", "b"], lambda todo: [f"<{name}>" for name in todo])

    assert texts == ["<a>", "<b>"]


def test_a_chunks_texts_are_kept_as_places_not_as_their_bytes(tmp_path: Path) -> None:
    build(tmp_path / "site", ["a", "b"])

    kept = (tmp_path / ".site.confcal-build.parts" / KEY).read_bytes()

    assert "<a é>".encode() not in kept


def test_a_chunks_texts_are_rendered_again_when_its_file_changed_since(tmp_path: Path) -> None:
    build(tmp_path / "site", ["a", "b"], "day v1")
    doc = tmp_path / "site" / "doc"
    written = doc.stat()
    doc.write_bytes(doc.read_bytes().replace(b"<a", b"<x"))
    os.utime(doc, ns=(written.st_atime_ns, written.st_mtime_ns + 1_000_000))

    _, rendered = build(tmp_path / "site", ["a", "b", "c"], "day v2")

    assert rendered == ["a", "b", "c"]


def test_a_chunk_not_holding_its_texts_in_order_keeps_their_bytes(tmp_path: Path) -> None:
    output = Output(tmp_path / "site")
    keeper = ChunkTexts[str](output, KEY, str)
    keeper.texts(["a", "b"], lambda todo: [f"<{name}>" for name in todo])

    keeper.keep("day", b"<b><a>")
    output.finish(())

    assert decode_pieces((tmp_path / ".site.confcal-build.parts" / KEY).read_bytes()) == {"a": ("<a>",), "b": ("<b>",)}


def test_texts_kept_as_their_bytes_by_an_earlier_build_are_read_back(tmp_path: Path) -> None:
    earlier = Output(tmp_path / "site")
    earlier.renew(KEY, encode_pieces({"a": ("<a>", "</a>"), "b": ("<b>", "</b>")}))
    earlier.finish(())

    texts, rendered = build(tmp_path / "site", ["a", "c"])

    assert (texts, rendered) == ([("<a>", "</a>"), ("<c é>", "</c>")], ["c"])
