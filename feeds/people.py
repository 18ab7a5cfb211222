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
    position when no earlier one is). Candidates are bucketed by first folded word, which every rule
    of `same_person` needs to be equal, so this stays linear in the number of names."""
    first: dict[str, int] = {}
    buckets: dict[str, list[int]] = {}
    result: list[int] = []
    for i, name in enumerate(names):
        key = fold(name)
        if key not in first:
            bucket = buckets.setdefault(key.split()[0] if key else "", [])
            found = find(name, [names[j] for j in bucket])
            if found is None:
                bucket.append(i)
            first[key] = i if found is None else bucket[found]
        result.append(first[key])
    return result
