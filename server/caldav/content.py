"""Comparing iCalendar objects by meaning, not by bytes.

Servers may re-serialize what they store (property order, line folding, parameter quoting), so
"is this the event we would have written?" compares parsed VEVENT properties (RFC 5545
section 3.6.1), never raw bytes.
"""

from __future__ import annotations

import icalendar

_VOLATILE = frozenset({"DTSTAMP"})  # RFC 5545 section 3.8.7.2: may be rewritten by any agent


def uids(ics: bytes) -> frozenset[str]:
    """The UIDs of the VEVENTs in a body; empty if it does not parse."""
    try:
        cal = icalendar.Calendar.from_ical(ics)
    except ValueError:
        return frozenset()
    return frozenset(str(c["UID"]) for c in cal.walk("VEVENT") if "UID" in c)


def _canonical(ics: bytes) -> list[tuple[str, ...]] | None:
    try:
        cal = icalendar.Calendar.from_ical(ics)
    except ValueError:
        return None
    out: list[tuple[str, ...]] = []
    for event in cal.walk("VEVENT"):
        props: list[tuple[str, ...]] = []
        for name, value in event.property_items(recursive=False):
            if name in ("BEGIN", "END") or name in _VOLATILE:
                continue
            values = value if isinstance(value, list) else [value]
            for v in values:
                params = tuple(sorted(f"{k}={p}" for k, p in getattr(v, "params", {}).items()))
                props.append(
                    (
                        name,
                        v.to_ical().decode() if hasattr(v, "to_ical") else str(v),
                        *params,
                    )
                )
        out.append(tuple(sorted("\x1f".join(p) for p in props)))
    return sorted(out)


def same_event(a: bytes, b: bytes) -> bool:
    """True if both bodies hold the same VEVENTs with the same properties (DTSTAMP aside)."""
    ca, cb = _canonical(a), _canonical(b)
    return ca is not None and ca == cb
