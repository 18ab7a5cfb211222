"""Every format reader, in detection order: the one place readers are imported.

Detection asks each reader in `ORDER` whether it recognises a document and takes the first that does,
so a reader with a strict signature (an XML root element, a JSON shape, a CSV header) comes before a
looser one; the Sched page reader, which accepts any text with a Sched time line, is last. A module
listed here registers its reader on import (feeds.sources.register); adding a format is one import
and one name here.
"""

from __future__ import annotations

# Each import registers its reader (feeds.sources.register).
from feeds.sources import READERS, Reader, frab_json, frab_xml, ics, sched_csv, sched_json, sched_page, table  # noqa: F401

ORDER = ("frab-xml", "frab-json", "sched-json", "sched-csv", "ics", "table", "sched-page")


def readers() -> tuple[Reader, ...]:
    """The registered readers, in detection order (any not in ORDER last, by registration)."""
    rank = {name: i for i, name in enumerate(ORDER)}
    return tuple(sorted(READERS, key=lambda r: rank.get(r.name, len(ORDER))))


def by_name(name: str) -> Reader | None:
    return next((r for r in READERS if r.name == name), None)
