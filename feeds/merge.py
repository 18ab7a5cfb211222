"""Merge the records of every reader into one schedule, in no format's terms.

- The conference zone: `--tz`, else the one zone the sources state. `--tz` is needed only when no
  source states a zone; a source that states one which `--tz` contradicts stops the ingest, except
  a source that states only UTC, to which `--tz` gives its local zone.
- Wall times (naive record times) are resolved in the record's own zone, else the conference zone; a
  wall time that does not exist or happens twice there is an error naming file and line.
- Every record is a session: readers decide what is "the same session" in their format (the Sched
  page reader joins list and detail pages), and two records never collapse here.
- A speaker is one person across sessions and sources (feeds.people); the first spelling seen wins.
- Provisional session ids come from feeds.identity, the one place that computes ids.
- The conference's dates are the first and the last conference day (`Conference.day_of`, cut at the
  day change) a session runs on.
- Only http(s) links are kept (feeds.web_links): any other link a source gives (`javascript:`, `data:`,
  `file:`, a relative path) is dropped with a warning naming its file, line and field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from feeds.errors import NotASchedule, SourceError, TimeZoneError
from feeds.identity import assign_ids
from feeds.model import Conference, Level, Link, Room, Schedule, Session, Speaker, Status, Track, conference_day
from feeds.people import unify
from feeds.slug import fold, slugify, unique_slugs
from feeds.sources.records import Person, SessionRecord, SourceBatch, SourceWarning
from feeds.web_links import web_link
from feeds.zones import load_zone, resolve_wall


@dataclass(frozen=True)
class Merged:
    schedule: Schedule
    warnings: tuple[SourceWarning, ...]


def _where(batch: SourceBatch) -> str:
    sources = sorted({r.source for r in batch.sessions})
    return sources[0] + (f" (and {len(sources) - 1} more)" if len(sources) > 1 else "") if sources else batch.format


# Names of UTC itself: a source that states one of these gives instants, not a place, so `--tz`
# may name the place (Sched's .ics exports say X-WR-TIMEZONE:UTC whatever the conference's zone).
_UTC_NAMES = frozenset({"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu"})
_UTC_NAMES |= {"GMT", "Etc/GMT", "Etc/GMT+0", "Etc/GMT-0", "Etc/GMT0", "GMT+0", "GMT-0", "GMT0", "Etc/Greenwich"}


def conference_zone(batches: Sequence[SourceBatch], tz: str | None) -> ZoneInfo:
    """`tz` if given and no source names another place, else the one zone the sources state. A
    source stating only UTC names no place: `tz` then gives the conference its local zone (the
    instants are unchanged; days, pages and feeds are shown in that zone)."""
    stated = [(b.zone, _where(b)) for b in batches if b.zone]
    places = [(name, where) for name, where in stated if name not in _UTC_NAMES]
    if tz:
        zone = load_zone(tz)
        for name, where in places:
            if name != zone.key:
                raise TimeZoneError(
                    f"{where} states time zone {name}, but --tz says {zone.key}; drop --tz or fix the source"
                )
        return zone
    names = list(dict.fromkeys(name for name, _ in places or stated))
    if len(names) > 1:
        said = ", ".join(f"{where}: {name}" for name, where in places or stated)
        raise TimeZoneError(f"the sources state different time zones ({said}); ingest them as separate conferences")
    if names:
        return load_zone(names[0])
    raise TimeZoneError("no time zone for this schedule: no source states one; pass --tz ZONE, e.g. --tz Europe/Paris")


def instant(value: datetime, record: SessionRecord, zone: ZoneInfo) -> datetime:
    """A record time in UTC: exact instants as they are, wall times resolved in their zone."""
    if value.utcoffset() is not None:
        return value.astimezone(UTC)
    try:
        return resolve_wall(value, load_zone(record.zone) if record.zone else zone)
    except TimeZoneError as exc:
        raise TimeZoneError(f"{record.title}: {exc}", source=record.source, line=record.line) from None


def merge(
    batches: Sequence[SourceBatch],
    tz: str | None = None,
    *,
    source_url: str | None = None,
    slug: str | None = None,
    day_change: time | None = None,
) -> Merged:
    """One schedule of every batch's records (see the module docstring). `slug` names the conference
    in the store and in URLs (default: from its name); it is also the name when no source states one."""
    zone = conference_zone(batches, tz)
    dropped: list[SourceWarning] = []
    records = [r for b in batches for r in b.sessions]
    if not records:
        where = ", ".join(_where(b) for b in batches)
        raise NotASchedule(f"no session with a title and a time found in {where}")
    people = _people(records)
    sessions = []
    for record in records:
        start, end = instant(record.start, record, zone), instant(record.end, record, zone)
        if end < start:
            raise SourceError(
                f"{record.title}: ends ({end:%Y-%m-%d %H:%M} UTC) before it starts",
                source=record.source,
                line=record.line,
            )
        sessions.append(
            Session(
                id="",
                title=record.title,
                start=start,
                end=end,
                kind=record.kind or "talk",
                room=Room(record.room) if record.room else None,
                track=Track(record.track) if record.track else None,
                level=Level(record.level) if record.level else None,
                description=record.description,
                speakers=_speakers(record, people),
                slides=record.slides,
                url=_link(record, dropped),
                status=Status.CANCELLED if record.cancelled else Status.CONFIRMED,
                source_id=record.source_id,
                links=_links(record, dropped),
                language=record.language or None,
                subtitle=record.subtitle or None,
                do_not_record=record.do_not_record,
            )
        )
    sessions.sort(key=lambda s: (s.start, s.end, fold(s.title), s.source_id or ""))
    identified = assign_ids(sessions, ())
    names = Counter(b.conference for b in batches if b.conference)
    places = Counter(b.place for b in batches if b.place)
    if slug is not None and not slugify(slug):
        raise SourceError(f"conference slug {slug!r} has no letters or digits")
    # `--day-change`, else the one a source states, else midnight.
    change = day_change or next((b.day_change for b in batches if b.day_change is not None), time())
    conference = Conference(
        name=names.most_common(1)[0][0] if names else slug or "Untitled conference",
        slug=slugify(slug) if slug else "",
        timezone=zone.key,
        start_date=min(conference_day(s.start, zone, change) for s in identified),
        end_date=max(conference_day(_last_instant(s), zone, change) for s in identified),
        city=places.most_common(1)[0][0] if places else None,
        source_url=next((u for b in batches if (u := _conference_link(b, dropped))), None) or web_link(source_url),
        day_change=change,
    )
    warnings = tuple(w for b in batches for w in b.warnings) + tuple(dropped)
    return Merged(Schedule(conference, identified), warnings)


def _last_instant(session: Session) -> datetime:
    """The last instant a session runs: one that ends at a day change (at midnight, by default)
    does not run into the next day, and one after it (a party to 01:00 where the day changes at
    06:00) ends on the conference day it started on, as the day feeds and the pages count it."""
    return max(session.start, session.end - _INSTANT)


# The smallest step of a datetime.
_INSTANT = timedelta(microseconds=1)


def _shown(url: str) -> str:
    return repr(url if len(url) <= 80 else url[:77] + "...")


def _link(record: SessionRecord, dropped: list[SourceWarning]) -> str | None:
    """The record's URL when it is an http(s) link; any other is dropped with a warning."""
    if record.url is None or web_link(record.url) is not None:
        return record.url
    note = f"{record.title}: URL field {_shown(record.url)} is not an http or https link; dropped"
    dropped.append(SourceWarning(record.source, record.line, note))
    return None


def _links(record: SessionRecord, dropped: list[SourceWarning]) -> tuple[Link, ...]:
    """The record's links that are http(s) links, each once; any other is dropped with a warning."""
    kept: list[Link] = []
    for link in record.links:
        if web_link(link.url) is None:
            what = "link" if link.kind == "link" else f"{link.kind} link"
            note = f"{record.title}: {what} {_shown(link.url)} is not an http or https link; dropped"
            dropped.append(SourceWarning(record.source, record.line, note))
        elif link.url not in {k.url for k in kept}:
            kept.append(link)
    return tuple(kept)


def _conference_link(batch: SourceBatch, dropped: list[SourceWarning]) -> str | None:
    if batch.url is None or web_link(batch.url) is not None:
        return batch.url
    note = f"the conference's URL field {_shown(batch.url)} is not an http or https link; dropped"
    dropped.append(SourceWarning(_where(batch), None, note))
    return None


def _speakers(record: SessionRecord, people: dict[str, Speaker]) -> tuple[Speaker, ...]:
    ordered: list[Speaker] = []
    for person in record.speakers:
        speaker = people.get(fold(person.name))
        if speaker is not None and speaker not in ordered:
            ordered.append(speaker)
    return tuple(ordered)


def _people(records: Sequence[SessionRecord]) -> dict[str, Speaker]:
    """One Speaker per person (feeds.people.unify), keyed by folded written name: every spelling seen
    maps to it, the first spelling names it, the longest bio and first role and affiliation stay."""
    everyone = [p for r in records for p in r.speakers if fold(p.name)]
    firsts = unify([p.name for p in everyone])
    merged: dict[int, Person] = {}
    for person, first in zip(everyone, firsts):
        old = merged.get(first)
        merged[first] = (
            person
            if old is None
            else Person(
                name=old.name,
                role=old.role or person.role,
                affiliation=old.affiliation or person.affiliation,
                bio=max((old.bio or "", person.bio or ""), key=len) or None,
            )
        )
    slugs = unique_slugs([p.name for p in merged.values()])
    speakers = {
        i: Speaker(p.name, slug=slugs[p.name], role=p.role, affiliation=p.affiliation, bio=p.bio)
        for i, p in merged.items()
    }
    return {fold(person.name): speakers[first] for person, first in zip(everyone, firsts)}
