"""One person across spellings, found in linear time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feeds.people import same_person, unify
from feeds.slug import fold


def test_each_name_points_at_the_first_spelling_of_its_person() -> None:
    names = ["Amir Afzali", "Grace Hopper", "Amir Afzail", "amir  AFZALI", "Daniel Holanda", "Daniel Holanda Noronha"]

    assert unify(names) == [0, 1, 0, 0, 4, 4]


def test_different_first_names_never_unify() -> None:
    assert unify(["Ada Lovelace", "Ada Byron", "Augusta Lovelace"]) == [0, 1, 2]


def _first_match_everywhere(names: list[str]) -> list[int]:
    """The rule `unify` keeps, stated directly: each new spelling is compared with every earlier
    person (quadratic, so only for small inputs)."""
    people: list[int] = []
    first: dict[str, int] = {}
    result = []
    for i, name in enumerate(names):
        key = fold(name)
        if key not in first:
            found = next((j for j in people if same_person(name, names[j])), None)
            if found is None:
                people.append(i)
            first[key] = i if found is None else found
        result.append(first[key])
    return result


# Few letters and short words, so prefixes, typos and swaps between names are common.
_WORD = st.text(alphabet="abcdeé", min_size=1, max_size=6)
_NAME = st.lists(_WORD, min_size=1, max_size=4).map(" ".join)


@given(st.lists(_NAME, max_size=40))
@settings(max_examples=400)
def test_unify_matches_comparing_with_every_earlier_person(names: list[str]) -> None:
    assert unify(names) == _first_match_everywhere(names)


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["Ana Ab Cdef", "Ana Ab Cdfe"], [0, 0]),  # two neighbours swapped in the last word
        (["Ana Abcd", "Ana Abcde"], [0, 0]),  # one extra letter
        (["Ana Abcde", "Ana Abde"], [0, 0]),  # one missing letter
        (["Ana Abcd", "Ana Abxd"], [0, 0]),  # one changed letter
        (["Ana Abc", "Ana Abd"], [0, 1]),  # too short for a typo
        (["Ana Abcd Efgh", "Ana Abxd Efgh"], [0, 1]),  # a typo in a word other than the last
        (["Ana", "Ana Abreu"], [0, 1]),  # one word is nobody's leading words
        (["Ana Abreu Costa", "Ana Abreu", "Ana Abreu Silva"], [0, 0, 2]),  # compared with the first spelling only
        (["Ana Abreu Silva", "Ana Abreu Costa", "Ana Abreu"], [0, 1, 0]),
    ],
)
def test_unify_table(names: list[str], expected: list[int]) -> None:
    assert unify(names) == expected
