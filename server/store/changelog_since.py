"""The changelog's newest versions read without the whole history.

`confcal build` keeps what each version contributes to the changelog documents, so a rebuild
after one ingest needs the changes of the new version alone. `changelog_since` reads the rows
the new versions wrote (small) and, for each session they wrote, the row that was current
before them: found in the older versions' recorded content (history.encode), newest first.
The oldest of those (the version that published the schedule) holds every session; parsing
all 10,000 of its rows was most of a rebuild's changelog, so a few rows are looked up in its
text instead (`rows_in`), which falls back to parsing when the text is not laid out as expected.
The whole changelog is read the same way when the caller holds the conference's sessions (a
build's schedule, a server's snapshot: `changelog_given`), the first version's rows looked up
only for the sessions later versions wrote.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, select

from feeds.model import Session
from server.store import history, rows
from server.store.changelog import changelog_tail, first_entry
from server.store.changes import VersionChanges
from server.store.history import VersionRecord, Written
from server.store.tables import version_content, versions

# Every row history.encode writes begins with its first key in sorted order (a session always
# has a description, and no other key sorts before it); a speaker's object begins otherwise.
_ROW = b'{"description":'
# A lookup scans the text once per id, a small fraction of parsing it all: beyond a few dozen
# ids, one parse is cheaper.
_LOOKUPS = 32
# The text decompressed at once when looking rows up: a few hundred rows.
_WINDOW = 2**20


@dataclass(frozen=True)
class Stamps:
    """What names the changelog entry of each version of a conference: the version, when it was
    made, and the first version whose rows the store recorded (history.first_recorded; None: none
    yet). An entry is made from that version's rows and the rows before it, which never change,
    or, for a version up to the first recorded one, from its diff and the first recorded rows."""

    versions: tuple[tuple[int, datetime], ...]  # (version, created), oldest first
    recorded: int | None


def stamps(conn: Connection, slug: str) -> Stamps:
    """The `Stamps` of `slug`'s versions, read without their diffs or rows."""
    query = select(versions.c.number, versions.c.created).where(versions.c.conference == slug).order_by(versions.c.id)
    found = tuple((int(version), rows.from_db_time(created)) for version, created in conn.execute(query))
    return Stamps(found, history.first_recorded(conn, slug))


@dataclass(frozen=True)
class Before:
    """Every session of a conference as of `version`, as a caller that read them then holds them
    (a static build keeps the schedule it read): a session no version after `version` wrote is
    as this says, since rows are never deleted, so its older rows need not be looked up."""

    version: int
    sessions: Sequence[Session]


def changelog_since(
    conn: Connection, slug: str, since: int, live: int, before: Before | None = None
) -> tuple[VersionChanges, ...] | None:
    """The changelog entries of the versions of `slug` after `since`, as `changelog` makes them
    (oldest first), given `live`, the `sessions` of version `since`'s entry; None when the store
    recorded no content up to `since` (the whole changelog must be read then: its older entries
    come from the diffs). `before`, when as of `since` or earlier, spares looking up the rows
    it holds in the versions up to its own."""
    start = history.first_recorded(conn, slug)
    if start is None or since < start:
        return None
    found = conn.execute(
        select(versions).where(versions.c.conference == slug, versions.c.number > since).order_by(versions.c.id)
    )
    records = [
        VersionRecord(int(r["number"]), r["conference"], rows.from_db_time(r["created"]), r["diff"])
        for r in found.mappings()
    ]
    written, wanted = _written_after(conn, slug, since)
    usable = before if before is not None and start <= before.version <= since else None
    return changelog_tail(records, written, _rows_before(conn, slug, since, wanted, usable), live)


def changelog_given(conn: Connection, slug: str, given: Before) -> tuple[VersionChanges, ...] | None:
    """Every changelog entry of `slug`, as `changelog` makes them, given its sessions as of any
    version from the first on (a build's schedule): a session no version after the first wrote
    is as `given` holds it, so the first version's rows (every session of the schedule it
    published: tens of megabytes to parse) are looked up for the sessions later versions wrote
    alone, and for a conference of one version not read at all. None when the store recorded no
    content from the first version (its first entries come from their diffs)."""
    records = history.version_records(conn, slug)
    start = history.first_recorded(conn, slug)
    if not records or start != records[0].version or given.version < start:
        return None
    written, wanted = _written_after(conn, slug, start)
    first = _rows_before(conn, slug, start, wanted, None)
    kept = sum(not s.cancelled for s in given.sessions if s.id not in wanted)
    live = kept + sum(not s.cancelled for s in first.values())
    return (first_entry(records[0], live), *changelog_tail(records[1:], written, first, live))


def _written_after(conn: Connection, slug: str, since: int) -> tuple[dict[int, Written], set[str]]:
    """The rows each version of `slug` after `since` wrote, by version, and their sessions' ids."""
    content = select(version_content.c.version, version_content.c.sessions).where(
        version_content.c.conference == slug, version_content.c.version > since
    )
    written = {int(version): Written.of(data) for version, data in conn.execute(content)}
    return written, {sid for rows_of in written.values() for sid in rows_of.ids()}


def _rows_before(
    conn: Connection, slug: str, since: int, wanted: set[str], before: Before | None
) -> dict[str, Session]:
    """The sessions of `wanted` as version `since` left them (the newest recorded row of each):
    looked up in the versions after `before`'s and taken from it for the others (the version
    that published the schedule holds every row: tens of megabytes to decompress for one)."""
    if not wanted:
        return {}
    older = (
        select(version_content.c.sessions)
        .where(
            version_content.c.conference == slug,
            version_content.c.version <= since,
            version_content.c.version > (-1 if before is None else before.version),
        )
        .order_by(version_content.c.version.desc())
    )
    found: dict[str, Session] = {}
    missing = set(wanted)
    for (data,) in conn.execute(older):
        if not missing:
            break
        newest = rows_in(data, missing)
        found.update(newest)
        missing.difference_update(newest)
    if before is not None and missing:
        found.update((s.id, s) for s in before.sessions if s.id in missing)
    return found


def rows_in(data: bytes, wanted: Collection[str], window: int = _WINDOW) -> dict[str, Session]:
    """The sessions of `wanted` among the rows `data` (history.encode) holds, the last row of
    each as a whole parse takes it. A few are looked up in the text a window at a time: the
    version that published a large schedule is tens of megabytes of text, which a server
    answering its changelog would otherwise hold at once."""
    if len(wanted) <= _LOOKUPS:
        found: dict[str, Session] = {}
        for run in row_runs(data, window):
            looked_up = look_up(run, wanted)
            if looked_up is None:
                break
            found.update(looked_up)
        else:
            return found
    parsed = Written.of(data)
    return {sid: session for sid in wanted if (session := parsed.session(sid)) is not None}


def row_runs(data: bytes, window: int = _WINDOW) -> Iterator[bytes]:
    """encode's text in runs of whole rows, each laid out as the whole text is (a JSON list),
    decompressed about `window` bytes at a time. A run is cut before a `{"description":` that
    follows `},`: what look_up takes as a row's start. Text cut short ends in a run look_up
    refuses, so the caller parses it whole, and fails as a whole parse does."""
    stream = zlib.decompressobj()
    rest, carry = data, b""
    while not stream.eof:
        out = stream.decompress(rest, window)
        rest = stream.unconsumed_tail
        if not out and not rest:
            break
        text = carry + out
        cut = text.rfind(b"}," + _ROW) if not stream.eof else -1
        if cut < 0:
            carry = text
            continue
        yield text[: cut + 1] + b"]"
        carry = b"[" + text[cut + 2 :]
    yield carry


def look_up(text: bytes, wanted: Collection[str]) -> dict[str, Session] | None:
    """The rows of `wanted` cut out of encode's text and parsed alone; None when the text is not
    as encode lays it out (sorted keys, no spaces, ASCII), so the caller parses it whole.

    A `"` inside a JSON string is always escaped, so `,"id":"…"` is an object's "id" key (a row's:
    speakers have no id); the row is the object from the `{"description":` before it to the one
    after it, and is used only when it parses alone as an object with that id."""
    if text == b"[]":
        return {}
    if not text.startswith(b"[" + _ROW) or not text.endswith(b"}]") or b',"id":"' not in text:
        return None
    found: dict[str, Session] = {}
    for sid in wanted:
        key = b',"id":' + json.dumps(sid).encode()
        at = text.find(key)
        if at < 0:
            continue  # not a row of this version
        if text.find(key, at + 1) >= 0:
            return None
        start = text.rfind(_ROW, 0, at)
        if start < 1:
            return None
        end = text.find(b"}," + _ROW, at)
        piece = text[start : len(text) - 1 if end < 0 else end + 1]
        try:
            row = json.loads(piece)
            session = Written([row]).session(sid) if isinstance(row, dict) and row.get("id") == sid else None
        except (ValueError, KeyError, TypeError):
            return None
        if session is None or text[start - 1] not in b"[,":
            return None
        found[sid] = session
    return found
