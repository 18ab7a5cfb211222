"""One person across spellings, found in linear time."""

from __future__ import annotations

from feeds.people import unify


def test_each_name_points_at_the_first_spelling_of_its_person() -> None:
    names = ["Amir Afzali", "Grace Hopper", "Amir Afzail", "amir  AFZALI", "Daniel Holanda", "Daniel Holanda Noronha"]

    assert unify(names) == [0, 1, 0, 0, 4, 4]


def test_different_first_names_never_unify() -> None:
    assert unify(["Ada Lovelace", "Ada Byron", "Augusta Lovelace"]) == [0, 1, 2]
