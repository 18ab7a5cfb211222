"""Readable, stable URL slugs: "Valérian Rey" -> "valerian-rey"."""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(text: str, max_length: int = 80) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    ascii_only = "".join(c for c in decomposed if not unicodedata.combining(c))
    slug = _NON_WORD.sub("-", ascii_only.lower()).strip("-")
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
