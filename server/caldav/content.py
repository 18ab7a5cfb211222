"""Comparing iCalendar objects by meaning, not by bytes.

Servers may re-serialize what they store (property order, line folding, parameter quoting), so
"is this the event we would have written?" compares parsed VEVENT properties (RFC 5545
section 3.6.1), never raw bytes. A VEVENT's sub-components (VALARM, RFC 5545 section 3.6.6)
are part of it: an alarm the owner added is an edit of theirs like any other.
"""

from __future__ import annotations

import icalendar

_VOLATILE = frozenset({"DTSTAMP"})  # RFC 5545 section 3.8.7.2: may be rewritten by any agent

# A component by meaning: its name, its properties (one string each, sorted) and its
# sub-components (each canonical, sorted). icalendar types the name optional; parsed ones have one.
Canonical = tuple[str | None, tuple[str, ...], tuple["Canonical", ...]]


def uids(ics: bytes) -> frozenset[str]:
    """The UIDs of the VEVENTs in a body; empty if it does not parse. Only VEVENTs': a VALARM
    may carry a UID of its own (RFC 9074 section 4, Apple's calendars write one)."""
    try:
        cal = icalendar.Calendar.from_ical(ics)
    except ValueError:
        return frozenset()
    # Component names and property names are case-insensitive in icalendar (walk upper-cases
    # the name, components are caseless dicts).
    return frozenset(str(c["UID"]) for c in cal.walk("VEVENT") if "UID" in c)


def _property(name: str, value: object) -> str:
    # Every value icalendar parses (vBroken and vUnknown too) is one of its property types, which
    # all have `params` and `to_ical`: the fallbacks only keep a value of any other type comparable.
    params = sorted(f"{k}={p}" for k, p in getattr(value, "params", {}).items())
    text = value.to_ical().decode() if hasattr(value, "to_ical") else str(value)
    # Any separator works that cannot occur in a value (control characters cannot, RFC 5545
    # section 3.3.11).
    return "\x1f".join((name, text, *params))


def _component(component: icalendar.Component) -> Canonical:
    props = tuple(
        sorted(
            _property(name, value)
            # Sub-components are compared below, one by one, so their properties stay out of this
            # list.
            for name, value in component.property_items(recursive=False)
            # BEGIN and END only name the component, which is compared itself.
            if name not in ("BEGIN", "END") and name not in _VOLATILE
        )
    )
    return (component.name, props, tuple(sorted(_component(c) for c in component.subcomponents)))


def _canonical(ics: bytes) -> list[Canonical] | None:
    try:
        cal = icalendar.Calendar.from_ical(ics)
    except ValueError:
        return None
    return sorted(_component(event) for event in cal.walk("VEVENT"))


def same_event(a: bytes, b: bytes) -> bool:
    """True if both bodies hold the same VEVENTs with the same properties (DTSTAMP aside) and
    the same sub-components."""
    ca, cb = _canonical(a), _canonical(b)
    return ca is not None and ca == cb
