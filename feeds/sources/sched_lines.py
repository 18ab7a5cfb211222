"""The kinds of line a Sched page copied as text is made of.

Each function recognises one kind of line; sched.py decides from their order what a line means.
"""

from __future__ import annotations

import re
from datetime import date, time

from feeds.sources.sched_parsed import RawSpeaker, WallSpan

NBSP = "\u00a0"
READ_MORE = re.compile(r"\s*(?:\.\.\.|…)\s*Read More\s*→?\s*$")

_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
# Month numbers by English name, as the pattern spells them (strptime's %B would also do, at
# many times the cost a line).
_MONTH_NUMBER = {name: number for number, name in enumerate(_MONTHS.split("|"), start=1)}
_CLOCK = r"\d{1,2}:\d{2}\s*(?:[AaPp][Mm])?"
_ZONE = r"[A-Z]{1,6}(?:[+-]\d{1,2}(?::?\d{2})?)?|[+-]\d{2}:?\d{2}"
_SPAN = re.compile(
    rf"^(?:(?:{_DAYS}),?\s+)?(?P<month>{_MONTHS})\s+(?P<day>\d{{1,2}}),\s*(?P<year>\d{{4}})\s+"
    rf"(?P<start>{_CLOCK})\s*[-–]\s*(?P<end>{_CLOCK})(?:\s+(?P<zone>{_ZONE}))?$"
)
# The start of a time line: "Tuesday April 31, 2026 ..." or "April 7, 2026 11:00 - 11:" that `_SPAN`
# cannot read is a damaged time line, not description text.
_TIME_LINE_START = re.compile(
    rf"^(?:(?:{_DAYS}),?\s+)?(?:{_MONTHS})\s+\d{{1,2}},?\s*\d{{4}}\s+\d{{1,2}}:|^(?:{_DAYS}),?\s+(?:{_MONTHS})\s+\d{{1,2}}(?:,?\s*\d{{4}})?\s*$"
)
_SLOT = re.compile(rf"^(?P<clock>{_CLOCK})(?:\s+(?P<zone>{_ZONE}))?$")
_DAY_HEADER = re.compile(rf"^(?:{_DAYS}),\s+(?:{_MONTHS})\s+\d{{1,2}}$")
_FACET = re.compile(r"^(?P<label>[^:]{1,40}):\s+(?P<value>.+?)\s+clear filter$")
_SHOWN_IN = re.compile(r"automatically displayed in (?P<zone>[A-Z]{2,6})\b")
_REGISTERED_FOR = re.compile(r"registered for (?P<name>.+?) to participate")
_INITIALS = re.compile(r"^[A-Z]{1,3}$")
_BULLET = re.compile(r"^\s*•\s*(?P<text>\S.*)$")
_KNOWN_KINDS = {
    "lightning talk": "lightning talk",
    "keynote": "keynote",
    "sponsored keynote": "keynote",
    "panel": "panel",
    "panel discussion": "panel",
    "workshop": "workshop",
    "tutorial": "tutorial",
    "birds of a feather": "bof",
    "bof": "bof",
    "poster": "poster",
    "sponsored session": "sponsored session",
    "lightning talks": "lightning talk",
}


def clock(text: str) -> time:
    text = text.strip().lower().replace(" ", "")
    suffix = text[-2:] if text[-2:] in ("am", "pm") else ""
    hours, minutes = (int(part) for part in text.removesuffix(suffix).split(":"))
    if suffix:
        if not 1 <= hours <= 12:
            raise ValueError(f"{text}: hour out of range")
        hours = hours % 12 + (12 if suffix == "pm" else 0)
    return time(hours, minutes)  # raises ValueError for 25:00 or 10:61


def span(line: str, number: int) -> WallSpan | None:
    """A session time line, or None. Raises ValueError for a time line with an impossible date."""
    m = _SPAN.match(line.strip())
    if not m:
        return None
    return WallSpan(
        day=date(int(m.group("year")), _MONTH_NUMBER[m.group("month")], int(m.group("day"))),
        start=clock(m.group("start")),
        end=clock(m.group("end")),
        abbreviation=m.group("zone"),
        line=number,
    )


def is_damaged_time_line(line: str) -> bool:
    """A line that starts like a session time line but is not one `span` can read (cut short, no
    clock, a day without a year). Day headers ("Tuesday, April 7") are not time lines."""
    text = line.strip()
    return bool(_TIME_LINE_START.match(text)) and not _SPAN.match(text) and not is_day_header(text)


def is_slot(line: str) -> bool:
    return bool(_SLOT.match(line.strip()))


def is_day_header(line: str) -> bool:
    return bool(_DAY_HEADER.match(line.strip()))


def facet(line: str) -> tuple[str, str] | None:
    m = _FACET.match(line.strip())
    return (m.group("label").strip(), m.group("value").strip()) if m else None


def shown_in(line: str) -> str | None:
    m = _SHOWN_IN.search(line)
    return m.group("zone") if m else None


def registered_for(line: str) -> str | None:
    m = _REGISTERED_FOR.search(line)
    return m.group("name").strip() if m else None


def avatar(line: str) -> str | None:
    text = line.strip()
    return text[len("avatar for ") :].strip() or None if text.startswith("avatar for ") else None


def is_initials(line: str, next_line: str | None) -> bool:
    """ "AW" stands where an avatar would when it is followed by a name with those initials."""
    text = line.strip()
    if not _INITIALS.match(text) or not next_line:
        return False
    letters = "".join(w[0] for w in next_line.split() if w[:1].isalpha()).upper()
    return letters.startswith(text) or text.startswith(letters[:1]) and len(text) <= len(letters)


def bullet(line: str) -> str | None:
    m = _BULLET.match(line)
    return m.group("text").strip() if m else None


def is_track(line: str) -> bool:
    return line.startswith(NBSP) and bool(line.strip(NBSP + " \t"))


def split_kind(title: str) -> tuple[str | None, str]:
    """ "Lightning Talk: TorchJD" -> ("lightning talk", "TorchJD"); unknown prefixes stay in the title."""
    head, sep, rest = title.partition(":")
    kind = _KNOWN_KINDS.get(head.strip().lower()) if sep else None
    if kind and rest.strip():
        return kind, rest.strip()
    return None, title.strip()


def role_line(text: str) -> tuple[str | None, str | None]:
    """ "Technical Advisor, Microsoft" -> role and affiliation (split at the last comma)."""
    head, sep, tail = text.strip().rpartition(", ")
    if sep and head.strip() and tail.strip():
        return head.strip(), tail.strip()
    return text.strip() or None, None


def strip_read_more(text: str) -> str:
    return READ_MORE.sub("", text).rstrip()


def title_speakers(tail: str) -> tuple[RawSpeaker, ...]:
    """ "A, X & B & C, Y" -> A (X), B (Y), C (Y): names without an affiliation of their own share the
    affiliation of the next group that has one, as Sched writes co-workers."""
    people: list[RawSpeaker] = []
    pending: list[str] = []
    for group in (g.strip() for g in tail.split(" & ")):
        parts = [p.strip() for p in group.split(", ") if p.strip()]
        if not parts:
            continue
        if len(parts) == 1:
            pending.append(parts[0])
            continue
        affiliation, names = parts[-1], pending + parts[:-1]
        pending = []
        people.extend(RawSpeaker(n, affiliation=affiliation, from_block=False) for n in names)
    if pending and people:
        # "Name, Aalto University & Mind Lab": a trailing group with no affiliation after it is the
        # rest of the last affiliation, not a person.
        last = people[-1].affiliation
        joined = " & ".join([last or "", *pending]).strip(" &")
        people = [
            p if p.affiliation != last else RawSpeaker(p.name, affiliation=joined, from_block=False) for p in people
        ]
        pending = []
    people.extend(RawSpeaker(n, from_block=False) for n in pending)
    return tuple(people)
