"""Comparing iCalendar objects by meaning, not by bytes.

Servers rewrite what they store, so "is this the event we would have written?" compares parsed
VEVENT properties (RFC 5545 section 3.6.1), never raw bytes, after undoing what real servers do
to an event that nobody edited:
- re-serialize it: property order, line folding, parameter order, quoting and letter case;
- split a multi-value property into one line per value (Cyrus: CATEGORIES:a,b comes back as
  CATEGORIES:a and CATEGORIES:b), so CATEGORIES compare as one set of values;
- add or refresh what the store maintains (DTSTAMP, CREATED, LAST-MODIFIED: RFC 5545 sections
  3.8.7.1-3.8.7.3), or spell out a default (SOGo adds CLASS:PUBLIC; others TRANSP:OPAQUE,
  SEQUENCE:0, VALUE=DATE-TIME): a property at its default means what its absence means.
Everything else counts, with its zone (the TZID parameter): the summary, times, place,
description, URL, status, sequence, categories. A VEVENT's sub-components (VALARM, RFC 5545
section 3.6.6) are part of it: an alarm the owner added is an edit of theirs like any other.
"""

from __future__ import annotations

import icalendar

# Maintained by the calendar store, not by the event's author (RFC 5545 sections 3.8.7.1-3.8.7.3).
_VOLATILE = frozenset({"DTSTAMP", "CREATED", "LAST-MODIFIED"})
# A property at its default value (RFC 5545 sections 3.8.1.3, 3.8.2.7, 3.8.7.4) means what its
# absence means; servers add them.
_DEFAULTS = frozenset({("CLASS", "PUBLIC"), ("TRANSP", "OPAQUE"), ("SEQUENCE", "0")})
# Each property's default value type (RFC 5545 section 3.2.20): VALUE= naming it says nothing.
_DEFAULT_TYPE = {
    **dict.fromkeys(("DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"), "DATE-TIME"),
    "URL": "URI",
    "DURATION": "DURATION",
    "TRIGGER": "DURATION",
}
# Parameters whose values are names from a fixed list, case-insensitive (RFC 5545 section 3.2);
# others (TZID, ALTREP, CN...) are compared as written.
_CASELESS_PARAMETERS = frozenset(
    {"VALUE", "ENCODING", "FBTYPE", "CUTYPE", "ROLE", "PARTSTAT", "RSVP", "RELATED", "RANGE", "RELTYPE"}
)

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


def _parameter(prop: str, key: str, value: object) -> str | None:
    key = key.upper()
    text = str(value).upper() if key in _CASELESS_PARAMETERS else str(value)
    if key == "VALUE" and _DEFAULT_TYPE.get(prop) == text:
        return None
    return f"{key}={text}"


def _property(name: str, value: object) -> str:
    # Every value icalendar parses (vBroken and vUnknown too) is one of its property types, which
    # all have `params` and `to_ical`: the fallbacks only keep a value of any other type comparable.
    named = (_parameter(name, k, p) for k, p in getattr(value, "params", {}).items())
    params = sorted(p for p in named if p is not None)
    text = value.to_ical().decode() if hasattr(value, "to_ical") else str(value)
    # Any separator works that cannot occur in a value (control characters cannot, RFC 5545
    # section 3.3.11).
    return "\x1f".join((name, text, *params))


def _categories(value: object) -> list[str]:
    # A parsed CATEGORIES line is a vCategory (its values in `cats`); anything else is one value.
    cats = getattr(value, "cats", None)
    return [str(c) for c in cats] if cats is not None else [str(value)]


def _component(component: icalendar.Component) -> Canonical:
    props: list[str] = []
    categories: set[str] = set()
    # Sub-components are compared below, one by one, so their properties stay out of this list.
    for name, value in component.property_items(recursive=False):
        name = name.upper()
        # BEGIN and END only name the component, which is compared itself.
        if name in ("BEGIN", "END") or name in _VOLATILE:
            continue
        if name == "CATEGORIES":
            categories.update(_categories(value))
            continue
        text = value.to_ical().decode() if hasattr(value, "to_ical") else str(value)
        if (name, text.upper()) in _DEFAULTS:
            continue
        props.append(_property(name, value))
    if categories:
        # Any separator works that cannot occur in a value (control characters cannot).
        props.append("\x1f".join(("CATEGORIES", *sorted(categories))))
    return (component.name, tuple(sorted(props)), tuple(sorted(_component(c) for c in component.subcomponents)))


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
