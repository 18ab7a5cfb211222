"""Conversions between model objects and table rows (plain dicts). Pure functions.

The model holds every instant aware; the tables' `Instant` columns take and give aware UTC."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from typing import Any

from feeds.model import Conference, Level, Link, Room, Session, Speaker, Status, Track


def to_db_time(value: datetime) -> datetime:
    """An instant as the tables take it: aware UTC (an `Instant` column would convert it anyway)."""
    return value.astimezone(UTC)


def from_db_time(value: datetime) -> datetime:
    """An instant as read: already aware UTC from an `Instant` column; a naive value is UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def conference_row(conference: Conference) -> dict[str, Any]:
    return {
        "slug": conference.slug,
        "name": conference.name,
        "timezone": conference.timezone,
        "start_date": conference.start_date,
        "end_date": conference.end_date,
        "venue": conference.venue,
        "city": conference.city,
        "source_url": conference.source_url,
        "day_change": conference.day_change.isoformat(),
    }


def conference_from_row(row: Mapping[Any, Any]) -> Conference:
    start: date = row["start_date"]
    end: date = row["end_date"]
    return Conference(
        name=row["name"],
        timezone=row["timezone"],
        start_date=start,
        end_date=end,
        venue=row["venue"],
        city=row["city"],
        source_url=row["source_url"],
        slug=row["slug"],
        day_change=time.fromisoformat(row["day_change"]),
    )


def session_row(conference_slug: str, session: Session, version: int) -> dict[str, Any]:
    return {
        "conference": conference_slug,
        "id": session.id,
        "title": session.title,
        "kind": session.kind,
        "starts_at": to_db_time(session.start),
        "ends_at": to_db_time(session.end),
        "room_name": session.room.name if session.room else None,
        "room_slug": session.room.slug if session.room else None,
        "track_name": session.track.name if session.track else None,
        "track_slug": session.track.slug if session.track else None,
        "level_name": session.level.name if session.level else None,
        "level_slug": session.level.slug if session.level else None,
        "description": session.description,
        "speakers": [_speaker_dict(s) for s in session.speakers],
        "slides": session.slides,
        "url": session.url,
        "status": session.status.value,
        "revision": session.revision,
        "modified": to_db_time(session.modified) if session.modified else None,
        "version": version,
        "source_id": session.source_id,
        "extras": _extras(session),
    }


def _extras(session: Session) -> dict[str, Any] | None:
    if not (session.links or session.language or session.subtitle or session.do_not_record):
        return None
    return {
        "links": [{"url": k.url, "title": k.title, "kind": k.kind} for k in session.links],
        "language": session.language,
        "subtitle": session.subtitle,
        "do_not_record": session.do_not_record,
    }


_SPEAKER_FIELDS = tuple(f.name for f in dataclasses.fields(Speaker))


def _speaker_dict(speaker: Speaker) -> dict[str, Any]:
    """`dataclasses.asdict` of a speaker, whose fields are plain values: the same keys in the same
    order, without asdict's recursive deep copy (a large share of storing an ingest)."""
    return {name: getattr(speaker, name) for name in _SPEAKER_FIELDS}


def session_from_row(row: Mapping[Any, Any], known: dict[tuple[Any, ...], Any] | None = None) -> Session:
    """The session a row holds. Rows read together pass one `known`: their rooms, tracks, levels
    and speakers are then made once and shared (10,000 sessions name a few hundred of them;
    making each anew was a third of reading the schedule)."""
    found = {} if known is None else known
    room = _shared(found, Room, row["room_name"], row["room_slug"] or "") if row["room_name"] else None
    track = _shared(found, Track, row["track_name"], row["track_slug"] or "") if row["track_name"] else None
    level = _shared(found, Level, row["level_name"], row["level_slug"] or "") if row["level_name"] else None
    stored = row["speakers"]
    if isinstance(stored, str):
        # The column's text as stored (SQLite, as Store reads it): sessions of the same speakers
        # store the same text, decoded and made once.
        speakers = found.get(("speakers", stored))
        if speakers is None:
            speakers = found["speakers", stored] = _speakers(found, json.loads(stored))
    else:
        speakers = _speakers(found, stored)
    modified = row["modified"]
    extras = row.get("extras")  # rows kept in the history before the column existed have none
    return Session(
        id=row["id"],
        title=row["title"],
        start=_instant(found, row["starts_at"]),
        end=_instant(found, row["ends_at"]),
        kind=row["kind"],
        room=room,
        track=track,
        level=level,
        description=row["description"],
        speakers=speakers,
        slides=bool(row["slides"]),
        url=row["url"],
        status=_STATUSES.get(row["status"]) or Status(row["status"]),
        revision=row["revision"],
        modified=_instant(found, modified) if modified else None,
        source_id=row["source_id"],
        **_from_extras(json.loads(extras) if isinstance(extras, str) else extras),
    )


# A session's status by its stored value: a dict, not the enum's lookup, for every row read.
_STATUSES = {status.value: status for status in Status}


def _speakers(known: dict[tuple[Any, ...], Any], stored: list[Mapping[str, Any]]) -> tuple[Speaker, ...]:
    return tuple(_shared(known, Speaker, s["name"], s["slug"], s["role"], s["affiliation"], s["bio"]) for s in stored)


def _instant(known: dict[tuple[Any, ...], Any], value: datetime | str) -> datetime:
    """`from_db_time` of a value as read, or of the text SQLite stores for it (as Store reads it: the
    UTC wall time, `2026-03-01 09:00:00.000000`), parsed once per text: a conference's sessions
    share a few hundred start and end times."""
    if not isinstance(value, str):
        return from_db_time(value)
    made = known.get(("instant", value))
    if made is None:
        made = known["instant", value] = from_db_time(datetime.fromisoformat(value))
    return made


def _from_extras(extras: Mapping[str, Any] | None) -> dict[str, Any]:
    if not extras:
        return {}
    return {
        "links": tuple(Link(k["url"], k.get("title", ""), k.get("kind", "link")) for k in extras.get("links", [])),
        "language": extras.get("language"),
        "subtitle": extras.get("subtitle"),
        "do_not_record": bool(extras.get("do_not_record")),
    }


def _shared(known: dict[tuple[Any, ...], Any], kind: type[Any], *fields: Any) -> Any:
    """`kind(*fields)`, the same object for the same fields within one `known`."""
    key = (kind, *fields)
    made = known.get(key)
    if made is None:
        made = known[key] = kind(*fields)
    return made
