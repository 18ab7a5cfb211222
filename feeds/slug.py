"""Folding text for comparison, and readable URL slugs built on it: "Valérian Rey" -> "valerian-rey"."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_NON_WORD = re.compile(r"[\W_]+")
_NON_ASCII_WORD = re.compile(r"[^a-z0-9]+")


@lru_cache(maxsize=1 << 16)
def fold(text: str) -> str:
    """Text as compared: accents stripped, case folded, punctuation and spacing reduced to single
    spaces. Letters of every script survive, so non-Latin names and titles stay distinct.
    Cached: an ingest compares the same names and titles many times over."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return _NON_WORD.sub(" ", plain).strip()


def slugify(text: str, max_length: int = 80) -> str:
    # URL slugs stay ASCII; a name with no ASCII letters becomes "x" and unique_slugs numbers it.
    slug = _NON_ASCII_WORD.sub("-", fold(text)).strip("-")
    return slug[:max_length].rstrip("-") or "x"


def unique_slugs(names: list[str]) -> dict[str, str]:
    """Map each distinct name to a slug, suffixing -2, -3 … in sorted-name order on collision,
    so the assignment does not depend on input order."""
    result: dict[str, str] = {}
    taken: set[str] = set()
    for name in sorted(set(names)):
        base = slugify(name)
        slug, n = base, 2
        while slug in taken:
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug)
        result[name] = slug
    return result
