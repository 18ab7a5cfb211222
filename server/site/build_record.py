"""The record `confcal build` keeps of the last build, beside its output directory.

`.OUTDIR.confcal-build.sqlite` is an SQLite database, read by key and written by key, so a
rebuild reads the entries of the conferences it makes (not of those it carries over) and writes
the entries that changed (not every file's):
- `files`: each file the build wrote, by site-relative path: the key of its inputs, a digest of
  its bytes (of a file written joined, of its segments' digests, then `:size:mtime_ns` as it
  was written: build_bodies.Joined) and the parts it was joined from (keys separated by
  spaces, or NULL);
- `parts`: each kept part (in `.OUTDIR.confcal-build.parts/`), by key: its CRC-32 and length
  (for a part taken unread, the events', `::size:mtime_ns` instead); or, for a piece kept in the
  file joined from it, `@start:end:sha256:size:mtime_ns:path` (the file's size and modification
  time);
- `conferences`: each conference's `Stamped` (build_conferences.py), as JSON;
- `samples`: a few recorded files spread over the output, checked for presence by the next
  build (a deleted or replaced output directory is noticed for a few dozen stats);
- `meta`: the record's format.
How a build uses it is build_output.py's. A record that cannot be read, or of another format
(the JSON record of earlier versions included), counts as none: every file is then read and
compared, and every part made again, once.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

RECORD = ".{}.confcal-build.sqlite"
# The record's earlier form: a JSON document read and written whole. Removed once a build has
# saved its record the new way.
OLD_RECORD = ".{}.confcal-build.json"
PARTS = ".{}.confcal-build.parts"
_FORMAT = "5"  # 3: the JSON document; 4: the SQLite database; 5: the root's copy not in it

# A file as a build made it: (the key of its inputs or None, the digest of its bytes).
Made = tuple[str | None, str]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, key TEXT, digest TEXT NOT NULL, uses TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS files_joined ON files (path) WHERE uses IS NOT NULL;
CREATE TABLE IF NOT EXISTS parts (key TEXT PRIMARY KEY, digest TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conferences (slug TEXT PRIMARY KEY, stamped TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS samples (path TEXT PRIMARY KEY) WITHOUT ROWID;
"""


@dataclass(frozen=True)
class Stamped:
    """A conference as a build wrote it: the stamp of what its files are made from besides its
    sessions, the instants between which its sessions' visibility stays as it was then (from
    `made`, the build's time: a clock set back could show a session again), and its counts."""

    stamp: str
    made: datetime
    until: datetime | None
    feeds: int
    sessions: int
    parts: tuple[str, ...] = ()  # kept outside any file's parts (its events, build_events.py)
    # What a rebuild needs to make only the files of the sessions written since (build_conferences.py):
    # the stamp without the conference's version, the key of the conference's files' other
    # inputs (site_build.conference_key), and the last version whose rows the files show, with
    # its name (server.store.store.RowWrites).
    frame: str = ""
    base: str = ""
    version: int = 0
    written: str = ""

    def holds(self, stamp: str, now: datetime) -> bool:
        """Whether a build at `now` with `stamp` would make the same files."""
        return stamp == self.stamp and self.made <= now and (self.until is None or now <= self.until)


@dataclass(frozen=True)
class Changes:
    """What a build changes in the record: rows to write and rows to remove."""

    files: Iterable[tuple[str, str | None, str, str | None]]  # path, key, digest, uses
    gone: list[str]  # paths
    parts: dict[str, str]
    parts_gone: list[str]
    conferences: dict[str, Stamped] | None  # every conference's, or None: as recorded
    samples: list[str]
    whole: bool  # the record is written anew: every row not in `files`/`parts` goes
    mirrored: str | None  # the base of the conference whose files the root has hard links to


def record_path(root: Path, name: str = RECORD) -> Path:
    """Where the record of the build into `root` is kept (`name`: in another format): beside
    it, named after it."""
    absolute = root.resolve()
    return absolute.parent / name.format(absolute.name)


class Book:
    """The record at `path`, open for one build: read by key while the build runs, written in
    one transaction at its end (`save`). A record it cannot read is empty."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        if path.exists():
            db = sqlite3.connect(path, isolation_level=None)
            try:
                found = db.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
            except sqlite3.DatabaseError:
                db.close()
                return
            if found is not None and found[0] == _FORMAT:
                self._db = db
            else:
                db.close()

    def empty(self) -> bool:
        """Whether the record names no file."""
        return self._db is None or self._db.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None

    def mirrored(self) -> str | None:
        """The base (`c/{slug}/`) of the conference whose files the root holds hard links to."""
        if self._db is None:
            return None
        found = self._db.execute("SELECT value FROM meta WHERE name = 'mirrored'").fetchone()
        return None if found is None else str(found[0])

    def samples(self) -> list[str]:
        if self._db is None:
            return []
        return [path for (path,) in self._db.execute("SELECT path FROM samples")]

    def parts(self) -> dict[str, str]:
        if self._db is None:
            return {}
        return dict(self._db.execute("SELECT key, digest FROM parts"))

    def conferences(self) -> dict[str, Stamped]:
        """The recorded conferences; one it cannot read is left out (its files are then keyed
        one by one)."""
        if self._db is None:
            return {}
        found: dict[str, Stamped] = {}
        for slug, text in self._db.execute("SELECT slug, stamped FROM conferences"):
            stamped = _stamp_of(text)
            if stamped is not None:
                found[slug] = stamped
        return found

    def files(self, low: str, high: str) -> Iterator[tuple[str, Made, list[str] | None]]:
        """The files whose paths sort from `low` (included) to `high` (excluded); `high` ""
        for no end."""
        if self._db is None:
            return
        query = "SELECT path, key, digest, uses FROM files WHERE path >= ?"
        rows = self._db.execute(query + " AND path < ?", (low, high)) if high else self._db.execute(query, (low,))
        for path, key, made, uses in rows:
            yield path, (key, made), uses.split(" ") if uses else None

    def first_after(self, low: str) -> str | None:
        """The first recorded path from `low` on, in order."""
        if self._db is None:
            return None
        found = self._db.execute("SELECT path FROM files WHERE path >= ? ORDER BY path LIMIT 1", (low,)).fetchone()
        return None if found is None else str(found[0])

    def save(self, changes: Changes) -> None:
        """Apply `changes` in one transaction (the record is made when there is none)."""
        if self._db is None:
            for stale in (self.path, self.path.with_name(self.path.name + "-journal")):
                stale.unlink(missing_ok=True)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None)
        db = self._db
        db.execute("PRAGMA synchronous = OFF" if changes.whole else "PRAGMA synchronous = NORMAL")
        db.executescript(_SCHEMA)
        db.execute("BEGIN IMMEDIATE")
        try:
            if changes.whole:
                for table in ("files", "parts", "conferences", "samples"):
                    db.execute(f"DELETE FROM {table}")  # noqa: S608 - the names above
            db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (_FORMAT,))
            db.execute("DELETE FROM meta WHERE name = 'mirrored'")
            if changes.mirrored is not None:
                db.execute("INSERT INTO meta VALUES ('mirrored', ?)", (changes.mirrored,))
            db.executemany("DELETE FROM files WHERE path = ?", ((path,) for path in changes.gone))
            db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)", changes.files)
            db.executemany("DELETE FROM parts WHERE key = ?", ((key,) for key in changes.parts_gone))
            db.executemany("INSERT OR REPLACE INTO parts VALUES (?, ?)", changes.parts.items())
            if changes.conferences is not None:
                db.execute("DELETE FROM conferences")
                db.executemany(
                    "INSERT INTO conferences VALUES (?, ?)",
                    ((slug, _stamp_json(stamped)) for slug, stamped in changes.conferences.items()),
                )
            db.execute("DELETE FROM samples")
            db.executemany("INSERT OR IGNORE INTO samples VALUES (?)", ((path,) for path in changes.samples))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def joined(self) -> dict[str, list[str]]:
        """The parts each recorded file was joined from, for those joined from any (few: the
        schedule pages and the documents listing every session)."""
        if self._db is None:
            return {}
        return {
            path: uses.split(" ")
            for path, uses in self._db.execute("SELECT path, uses FROM files WHERE uses IS NOT NULL")
        }

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


def _stamp_json(stamped: Stamped) -> str:
    until = stamped.until.isoformat() if stamped.until is not None else None
    found = [
        stamped.stamp,
        stamped.made.isoformat(),
        until,
        stamped.feeds,
        stamped.sessions,
        list(stamped.parts),
        [stamped.frame, stamped.base, stamped.version, stamped.written],
    ]
    return json.dumps(found, separators=(",", ":"))


def _stamp_of(text: object) -> Stamped | None:
    try:
        found = json.loads(str(text))
        # A record of a build that did not note its rows (six fields) is read as noting none.
        stamp, made, until, feeds, sessions, parts, rows = found if len(found) == 7 else [*found, ["", "", 0, ""]]
        frame, base, version, written = rows
        stamped = Stamped(
            str(stamp),
            datetime.fromisoformat(made),
            datetime.fromisoformat(until) if until is not None else None,
            int(feeds),
            int(sessions),
            tuple(str(key) for key in parts),
            str(frame),
            str(base),
            int(version),
            str(written),
        )
    except (TypeError, ValueError):
        return None
    if stamped.made.tzinfo is None or (stamped.until is not None and stamped.until.tzinfo is None):
        return None
    return stamped


def remove_old_record(root: Path) -> None:
    """Remove the record of the earlier format beside `root`, if any: it counts as none."""
    try:
        os.unlink(record_path(root, OLD_RECORD))
    except FileNotFoundError:
        pass
