"""The schedule page's search (`?q=`), the same on the server as in the page's script.

A session matches when every word of the query occurs in its card's visible text: title
(with "Cancelled" on a cancelled one), speakers with their affiliations, room, session type,
track and level. Both sides fold the text the same way (lower case, accents removed: NFD, then
combining marks U+0300-U+036F dropped), so "valerian" finds "Valérian" with or without JavaScript.
The script (static/schedule.js, `fold` and `textOf`) reads the same parts off the rendered card.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from feeds import compact_json
from feeds.catalogue import kind_name, kind_slug
from feeds.model import Conference, Session

MAX_QUERY = 200  # characters of a search kept: longer ones are cut, not refused
_MARKS = re.compile("[\u0300-\u036f]")


def fold(text: str) -> str:
    return _MARKS.sub("", unicodedata.normalize("NFD", text)).lower()


def words(query: str) -> tuple[str, ...]:
    return tuple(fold(query[:MAX_QUERY]).split())


def card_text(session: Session) -> str:
    """The card's title, speakers and facts lines as the page shows them, folded."""
    title = session.title + (" Cancelled" if session.cancelled else "")
    speakers = ", ".join(p.name + (f" ({p.affiliation})" if p.affiliation else "") for p in session.speakers)
    facts = [session.room.name if session.room else "", kind_name(session.kind)]
    if session.track:
        facts.append(session.track.name)
    if session.level:
        facts.append(f"Level: {session.level.name}")
    return fold(" ".join([title, speakers, " ".join(f for f in facts if f)]))


def matching(sessions: Iterable[Session], query: str) -> set[str]:
    """Ids of the sessions every word of `query` is found in (all of them for no words)."""
    wanted = words(query)
    return {s.id for s in sessions if all(w in card_text(s) for w in wanted)}


def index_rows(by_day: dict[str, tuple[Session, ...]]) -> list[list[str]]:
    """`search.json`'s rows (FIELDS), by day and in each day by session id: what the page's
    script needs to count a search's and the filters' matches on every day, not only the day on
    screen (it counts them in any order). No times, and nothing ordered by time: a session moved
    within its day leaves the index as it was. Each day's rows are a function of its sessions
    alone, so a build keeps them by day."""
    return [row for day, sessions in by_day.items() for row in day_rows(day, sessions)]


def day_rows(day: str, sessions: Iterable[Session]) -> list[list[str]]:
    """One day's rows of `index_rows`."""
    return [index_row(day, s) for s in sorted(sessions, key=_id)]


def _id(session: Session) -> str:
    return session.id


def index_row(day: str, s: Session) -> list[str]:
    """A session's row in `search.json`, on `day`."""
    return [
        s.id,
        day,
        card_text(s),
        s.track.slug if s.track else "",
        s.room.slug if s.room else "",
        s.level.slug if s.level else "",
        kind_slug(s.kind),
        " ".join(p.slug for p in s.speakers),
    ]


def index_body(conference: Conference, rows: list[list[str]]) -> bytes:
    """`search.json`: `index_rows` with the names of their fields. Fetched on the first search or
    filter only; a few dozen bytes a session."""
    document = {"conference": conference.slug, "fields": FIELDS, "sessions": rows}
    return compact_json.dumps(document).encode("utf-8")


FIELDS = ["id", "day", "text", "track", "room", "level", "kind", "speaker"]
