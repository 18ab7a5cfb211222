"""The structures snapshots share: a map or sequence made with a few entries changed reads as a
copy of the old one changed, while the old one still reads as it was, and what the change did
not touch is the old one's own object."""

from __future__ import annotations

import random

from server.snapshot.persistent import CHUNK, TOP, Chunked, Overlay, same_items


def test_an_updated_overlay_reads_as_a_changed_copy_and_the_old_one_is_unchanged() -> None:
    old = Overlay({f"k{i}": i for i in range(100)})

    new = old.updated([("k5", -5), ("new", 1000)])

    assert dict(new) == {**{f"k{i}": i for i in range(100)}, "k5": -5, "new": 1000}
    assert (len(new), new["k5"], new.get("new"), "new" in new) == (101, -5, 1000, True)
    assert dict(old) == {f"k{i}": i for i in range(100)}
    assert (len(old), "new" in old, old.get("new")) == (100, False, None)


def test_get_reads_the_changed_entry_over_the_shared_one_and_the_default_only_for_a_missing_key() -> None:
    old: Overlay[str, int | None] = Overlay({"shared": 1, "changed": 2, "emptied": 3})

    new = old.updated([("changed", 20), ("emptied", None), ("added", 4)])

    found = [new.get(key, "default") for key in ("shared", "changed", "emptied", "added", "missing")]
    assert found == [1, 20, None, 4, "default"]
    assert (old.get("changed"), old.get("added"), old.get("added", 0)) == (2, None, 0)


def test_overlays_past_their_limit_read_the_same_once_joined() -> None:
    overlay = Overlay({i: 0 for i in range(10)})
    expected = {i: 0 for i in range(10)}

    for step in range(TOP + 50):
        overlay = overlay.updated([(step % (TOP + 20), step)])
        expected[step % (TOP + 20)] = step

    assert dict(overlay) == expected
    assert len(overlay) == len(expected)


def test_chunks_sorted_by_a_key_take_insertions_and_removals_like_a_sorted_list() -> None:
    rng = random.Random(32)
    items = sorted(rng.sample(range(100_000), 3 * CHUNK))
    boxed = [[i] for i in items]  # distinct objects, removed by identity
    chunked = Chunked.of(boxed)
    listed = list(boxed)
    key = lambda box: box[0]  # noqa: E731

    for _ in range(5 * CHUNK):
        if rng.random() < 0.5 and listed:
            gone = listed.pop(rng.randrange(len(listed)))
            chunked = chunked.removed(gone, key)
        else:
            come = [rng.randrange(100_000)]
            listed.append(come)
            listed.sort(key=key)
            chunked = chunked.inserted(come, key)

    assert [id(b) for b in chunked] == [id(b) for b in listed]
    assert (len(chunked), chunked[0], chunked[-1], chunked[10:20]) == (
        len(listed),
        listed[0],
        listed[-1],
        tuple(listed[10:20]),
    )
    assert max(len(c) for c in chunked.chunks) <= 2 * CHUNK


def test_replacing_one_item_shares_every_other_chunk_and_leaves_the_old_sequence_as_it_was() -> None:
    old = Chunked.of(range(10 * CHUNK))

    new = old.replaced({CHUNK + 3: -1})

    assert list(new) == [-1 if i == CHUNK + 3 else i for i in range(10 * CHUNK)]
    assert list(old) == list(range(10 * CHUNK))
    assert [a is b for a, b in zip(old.chunks, new.chunks, strict=True)] == [True, False] + [True] * 8


def test_same_items_compares_what_chunked_sequences_hold_not_how_they_are_chunked() -> None:
    whole = [[i] for i in range(4 * CHUNK)]
    first = Chunked.of(whole)
    chunked_otherwise = Chunked((tuple(whole[:100]), tuple(whole[100:])))
    other = first.replaced({5: [-5]})

    found = [same_items(first, chunked_otherwise), same_items(first, other), same_items(first, tuple(whole))]

    assert found == [True, False, True]
