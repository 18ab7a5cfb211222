"""Deciding whether two written names are one person.

Sched pages spell one speaker differently in different places: a typo in the title line ("Amir
Afzail" for "Amir Afzali"), or a fuller name in the title than in the speaker block ("Daniel Holanda
Noronha" / "Daniel Holanda"). Names are compared folded (case, accents, punctuation); they match when
equal, when one's words are the other's leading words plus more, or when they differ by a small typo
(one letter, or two neighbours swapped) in the last name only.
"""

from __future__ import annotations

from collections.abc import Sequence

from feeds.slug import fold


def same_person(a: str, b: str) -> bool:
    fa, fb = fold(a), fold(b)
    if not fa or not fb:
        return False
    if fa == fb:
        return True
    wa, wb = fa.split(), fb.split()
    shorter, longer = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    if len(shorter) >= 2 and longer[: len(shorter)] == shorter:
        return True  # "Daniel Holanda" / "Daniel Holanda Noronha"
    if len(wa) == len(wb) >= 2 and wa[:-1] == wb[:-1]:
        return _one_typo(wa[-1], wb[-1])  # "Afzail" / "Afzali"
    return False


def _one_typo(a: str, b: str) -> bool:
    """One swapped pair of neighbours, one changed, one missing or one extra letter."""
    if min(len(a), len(b)) < 4 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def find(name: str, names: list[str]) -> int | None:
    """Index of the first of `names` that is the same person as `name`, else None."""
    return next((i for i, other in enumerate(names) if same_person(name, other)), None)


def unify(names: Sequence[str]) -> list[int]:
    """For each name, the position of the first name in `names` that is the same person (its own
    position when no earlier one is): the same answer as calling `find` against every earlier
    person, but each name is compared only with the few earlier people `_Index` offers, so this
    stays linear in the number of names."""
    first: dict[str, int] = {}
    index = _Index()
    result: list[int] = []
    for i, name in enumerate(names):
        key = fold(name)
        if key not in first:
            found = next((j for j in index.candidates(key) if same_person(name, names[j])), None)
            if found is None:
                index.add(key, i)
            first[key] = i if found is None else found
        result.append(first[key])
    return result


class _Index:
    """Earlier people (one written name each) by the keys `same_person`'s rules need to share.

    - leading words: a name of two or more words matches a longer one that starts with all its
      words, so each person is filed under every leading run of two or more of its words and
      looked up by the name's own runs (it is the shorter) and its whole words (it is the longer);
    - one typo in the last word, the rest equal: two words one edit apart (changed, missing,
      extra or two neighbours swapped letter) share a spelling with at most one letter deleted,
      so each person is filed under the other words with each such spelling of its last word.
    `candidates` is a superset of the earlier people `same_person` accepts, in their order."""

    def __init__(self) -> None:
        self._whole: dict[tuple[str, ...], list[int]] = {}
        self._leading: dict[tuple[str, ...], list[int]] = {}
        self._typo: dict[tuple[tuple[str, ...], str], list[int]] = {}

    def add(self, key: str, position: int) -> None:
        words = tuple(key.split())
        if len(words) < 2:
            return  # one word: only an equal name matches, and `unify` catches that before
        self._whole.setdefault(words, []).append(position)
        for n in range(2, len(words) + 1):
            self._leading.setdefault(words[:n], []).append(position)
        for spelling in _spellings(words[-1]):
            self._typo.setdefault((words[:-1], spelling), []).append(position)

    def candidates(self, key: str) -> list[int]:
        words = tuple(key.split())
        if len(words) < 2:
            return []
        found = set(self._leading.get(words, ()))
        for n in range(2, len(words) + 1):
            found.update(self._whole.get(words[:n], ()))
        for spelling in _spellings(words[-1]):
            found.update(self._typo.get((words[:-1], spelling), ()))
        return sorted(found)


def _spellings(word: str) -> set[str]:
    """The word and every spelling of it with one letter deleted."""
    return {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}
