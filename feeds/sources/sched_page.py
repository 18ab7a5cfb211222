"""Reader for Sched pages copied from a browser as text (list views, often filtered, and single sessions).

The parser (feeds.sources.sched) reads one page; this reader joins the pages of one snapshot:

- A session seen on several pages is one session: same start, end and folded title.
- A page's filter facet applies to every session on it: Type/Track -> track, Venue/Room -> room, and a
  facet whose value is an audience level -> level, whatever its label (Sched sites mislabel facets).
- A partial page (no title line) merges into the one session with the same times whose room and
  speakers agree; a page that cannot be placed at all is a warning naming the file, never an event.
- A speaker is one person across title lines and speaker blocks (feeds.people); the block wins, and a
  person named only in a title line is kept.
- Times carry an abbreviation ("11:00 CEST"), checked against the conference zone (feeds.zones): `--tz`,
  else the zone the header's place names ("Paris, France"), reported as a warning. So records leave
  this reader as exact instants. The pages have no session ids.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from feeds.errors import NotASchedule, TimeZoneError
from feeds.people import find, unify
from feeds.slug import fold
from feeds.sources import register, sched
from feeds.sources.documents import Document
from feeds.sources.records import Person, SessionRecord, SourceBatch, SourceWarning
from feeds.sources.sched_parsed import ParsedPage, RawSession, RawSpeaker
from feeds.zones import load_zone, resolve_span, zone_for_place

NAME = "sched-page"
LEVEL_WORDS = {"any", "all", "all levels", "beginner", "introductory", "novice", "intermediate", "advanced", "expert"}
FACET_FIELDS = {
    "type": "track",
    "track": "track",
    "tracks": "track",
    "category": "track",
    "topic": "track",
    "venue": "room",
    "room": "room",
    "location": "room",
    "audience level": "level",
    "level": "level",
    "experience level": "level",
    "audience": "level",
}
# A time line, a filter header or the display-zone note: what only a Sched page has.
_SIGNS = re.compile(
    r"^\s*(?:(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday),?\s+)?"
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}\b.*\d:\d"
    r"|clear filter\s*$|automatically displayed in [A-Z]",
    re.M,
)


# A page repeats a few hundred time slots over thousands of sessions, and resolving one through
# the zone is pure but not cheap. Errors are not cached.
_span_instants = lru_cache(maxsize=4096)(resolve_span)


class SchedPageReader:
    name = NAME
    label = "Sched page (text copied from a browser)"

    def recognises(self, document: Document) -> bool:
        return _SIGNS.search(document.text) is not None

    def read(self, documents: Sequence[Document], tz: str | None) -> SourceBatch:
        pages = [parse_document(doc) for doc in documents]
        return join(pages, tz, url=next((d.url for d in documents if d.url), None))


def parse_document(doc: Document) -> ParsedPage:
    page = sched.parse(doc.text, doc.name)
    if not (page.sessions or page.facets or page.zone_label or page.defects):
        raise NotASchedule(
            "is not a schedule page: no session time line such as "
            "'Tuesday April 7, 2026 11:00 - 11:10 CEST' and no Sched page header",
            source=doc.name,
        )
    return page


@dataclass
class _Entry:
    start: datetime
    end: datetime
    title: str
    kind: str | None
    source: str
    line: int
    description: str = ""
    room: str | None = None
    track: str | None = None
    level: str | None = None
    slides: bool = False
    title_speakers: list[RawSpeaker] = field(default_factory=list)
    speakers: list[RawSpeaker] = field(default_factory=list)

    def absorb(self, raw: RawSession, warn: list[SourceWarning], source: str) -> None:
        if len(raw.description) > len(self.description):
            self.description = raw.description
        for attr in ("room", "track", "level"):
            new, old = getattr(raw, attr), getattr(self, attr)
            if new and old and fold(new) != fold(old):
                warn.append(
                    SourceWarning(source, raw.line, f"{attr} {new!r} differs from {old!r} elsewhere; kept {old!r}")
                )
            elif new and not old:
                setattr(self, attr, new)
        self.slides = self.slides or bool(raw.slides)
        if raw.title_speakers and not self.title_speakers:
            self.title_speakers = [p for p in raw.title_speakers if fold(p.name)]
        for person in (p for p in raw.speakers if fold(p.name)):  # "" or "-" names nobody
            if find(person.name, [s.name for s in self.speakers]) is None:
                self.speakers.append(person)


def choose_zone(pages: Sequence[ParsedPage], tz: str | None) -> tuple[ZoneInfo, str | None, list[SourceWarning]]:
    """The zone to read the pages in, the zone the pages themselves name (None when `tz` decided),
    and a warning when it came from the header's place."""
    if tz:
        return load_zone(tz), None, []
    places = Counter(p.place for p in pages if p.place)
    for place, _ in places.most_common():
        name = zone_for_place(place)
        if name:
            source = next(p.source for p in pages if p.place == place)
            note = f"time zone {name} taken from the page header {place!r}; pass --tz to choose another"
            return load_zone(name), name, [SourceWarning(source, None, note)]
    shown = next((p.zone_label for p in pages if p.zone_label), None)
    hint = f" (the pages show times in {shown}, which does not name one zone)" if shown else ""
    raise TimeZoneError(f"no time zone for this schedule{hint}: pass --tz ZONE, e.g. --tz Europe/Paris")


def join(pages: Sequence[ParsedPage], tz: str | None, *, url: str | None = None) -> SourceBatch:
    """The sessions of every page as one batch of exact-instant records (see the module docstring)."""
    zone, stated, warnings = choose_zone(pages, tz)
    warnings = [w for p in pages for w in p.warnings] + warnings
    seen_levels = {fold(s.level) for p in pages for s in p.sessions if s.level}
    entries: dict[tuple[datetime, datetime, str], _Entry] = {}
    partials: list[tuple[ParsedPage, RawSession, datetime, datetime]] = []
    for page in pages:
        facets = _facet_fields(page, seen_levels, warnings)
        for raw in page.sessions:
            assert raw.span is not None
            try:
                start, end = _span_instants(raw.span.day, raw.span.start, raw.span.end, raw.span.abbreviation, zone)
            except TimeZoneError as exc:
                raise TimeZoneError(str(exc), source=page.source, line=raw.span.line) from None
            raw = replace(
                raw,
                room=raw.room or facets.get("room"),
                track=raw.track or facets.get("track"),
                level=raw.level or facets.get("level"),
            )
            if raw.title is None:
                partials.append((page, raw, start, end))
                continue
            key = (start, end, fold(raw.title))
            entry = entries.setdefault(key, _Entry(start, end, raw.title, raw.kind, page.source, raw.line))
            entry.absorb(raw, warnings, page.source)
        if page.loose_text:
            warnings.append(
                SourceWarning(
                    page.source, None, "page has no title, time or room: cannot be placed in a calendar; skipped"
                )
            )
    for page, raw, start, end in partials:
        match = _place_partial(list(entries.values()), raw, start, end)
        if match is None:
            warnings.append(
                SourceWarning(page.source, raw.line, "session without a title matches no listed session; skipped")
            )
        else:
            match.absorb(raw, warnings, page.source)
    defects = tuple(d for p in pages for d in p.defects)
    if not entries and not defects:
        where = ", ".join(p.source for p in pages)
        raise NotASchedule(f"no session with a title and a time found in {where}")
    names = Counter(p.conference for p in pages if p.conference)
    places = Counter(p.place for p in pages if p.place)
    return SourceBatch(
        format=NAME,
        sessions=_records(list(entries.values())),
        conference=names.most_common(1)[0][0] if names else None,
        zone=stated,
        place=places.most_common(1)[0][0] if places else None,
        url=url,
        warnings=tuple(warnings),
        defects=defects,
    )


def _facet_fields(page: ParsedPage, seen_levels: set[str], warnings: list[SourceWarning]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for facet in page.facets:
        label, value = fold(facet.label), facet.value
        target = "level" if fold(value) in LEVEL_WORDS | seen_levels else FACET_FIELDS.get(label)
        if target is None or label == "date":
            if label != "date":
                warnings.append(
                    SourceWarning(
                        page.source,
                        facet.line,
                        f"filter {facet.label}: {value} is not a track, room or level; not applied",
                    )
                )
            continue
        fields[target] = value
    return fields


def _place_partial(entries: list[_Entry], raw: RawSession, start: datetime, end: datetime) -> _Entry | None:
    def agrees(e: _Entry) -> bool:
        if (e.start, e.end) != (start, end):
            return False
        if raw.room and e.room and fold(raw.room) != fold(e.room):
            return False
        names = [s.name for s in e.speakers + e.title_speakers]
        return not raw.speakers or any(find(s.name, names) is not None for s in raw.speakers)

    found = [e for e in entries if agrees(e)]
    return found[0] if len(found) == 1 else None


def _people(entries: list[_Entry]) -> dict[str, Person]:
    """One Person per person (feeds.people.unify), keyed by folded written name (every spelling seen
    maps to it). Block speakers come first so the block's spelling wins; a person named only in a
    title line is kept."""
    everyone = [s for e in entries for s in e.speakers] + [s for e in entries for s in e.title_speakers]
    firsts = unify([p.name for p in everyone])
    merged: dict[int, RawSpeaker] = {}
    for person, first in zip(everyone, firsts):
        old = merged.get(first)
        merged[first] = (
            person
            if old is None
            else RawSpeaker(
                name=old.name if old.from_block or not person.from_block else person.name,
                role=old.role or person.role,
                affiliation=old.affiliation
                if old.from_block and old.affiliation
                else person.affiliation or old.affiliation,
                bio=max((old.bio or "", person.bio or ""), key=len) or None,
                from_block=old.from_block or person.from_block,
            )
        )
    people = {i: Person(c.name, affiliation=c.affiliation, role=c.role, bio=c.bio) for i, c in merged.items()}
    return {fold(person.name): people[first] for person, first in zip(everyone, firsts)}


def _records(entries: list[_Entry]) -> tuple[SessionRecord, ...]:
    people = _people(entries)
    records = []
    for e in entries:
        ordered: list[Person] = []
        for raw in e.title_speakers + e.speakers:
            person = people[fold(raw.name)]
            if person not in ordered:
                ordered.append(person)
        records.append(
            SessionRecord(
                source=e.source,
                line=e.line,
                title=e.title,
                start=e.start,
                end=e.end,
                kind=e.kind,
                description=e.description,
                room=e.room,
                track=e.track,
                level=e.level,
                speakers=tuple(ordered),
                slides=e.slides,
            )
        )
    return tuple(records)


READER = register(SchedPageReader())
