from __future__ import annotations

from feeds.slug import fold, slugify, unique_slugs


def test_fold_keeps_letters_of_every_script() -> None:
    assert (fold("Valérian  Rey!"), fold("王伟"), fold("Straße")) == ("valerian rey", "王伟", "strasse")


def test_slugs_are_ascii_and_readable() -> None:
    assert (slugify("Valérian Rey"), slugify("Straße"), slugify("王伟"), slugify("Q&A: Panel")) == (
        "valerian-rey",
        "strasse",
        "x",
        "q-a-panel",
    )


def test_colliding_slugs_are_numbered_independently_of_order() -> None:
    assert (
        unique_slugs(["José Li", "Jose Li"])
        == unique_slugs(["Jose Li", "José Li"])
        == {"Jose Li": "jose-li", "José Li": "jose-li-2"}
    )
