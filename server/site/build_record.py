"""The record `confcal build` keeps of the last build, beside its output directory.

`.OUTDIR.confcal-build.json` holds, as JSON:
- `files`: each file the build wrote, by site-relative path: the key of its inputs and a digest
  of its bytes;
- `parts`: each kept part (in `.OUTDIR.confcal-build.parts/`), by key: the digest of its bytes;
- `uses`: the parts each file was joined from;
- `conferences`: each conference's `Stamped` (build_conferences.py).
How a build uses it is build_output.py's. A record that cannot be read, or of another format,
counts as none: every file is then read and compared, and every part made again, once.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

RECORD = ".{}.confcal-build.json"
PARTS = ".{}.confcal-build.parts"
_FORMAT = 3  # 2: the parts each file was joined from ("uses"); 3: SHA-256 digests of bytes


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

    def holds(self, stamp: str, now: datetime) -> bool:
        """Whether a build at `now` with `stamp` would make the same files."""
        return stamp == self.stamp and self.made <= now and (self.until is None or now <= self.until)


class Record(NamedTuple):
    """A build's record, as read or to be written."""

    files: dict[str, tuple[str | None, str]]
    parts: dict[str, str]
    uses: dict[str, list[str]]
    conferences: dict[str, Stamped]


_NONE = Record({}, {}, {}, {})


def record_path(root: Path) -> Path:
    """Where the record of the build into `root` is kept: beside it, named after it."""
    absolute = root.resolve()
    return absolute.parent / RECORD.format(absolute.name)


def save(path: Path, record: Record) -> None:
    """Write `record` at `path` whole: beside it, then renamed over it."""
    stamps = {slug: _stamp_json(stamped) for slug, stamped in record.conferences.items()}
    found = {
        "format": _FORMAT,
        "files": record.files,
        "parts": record.parts,
        "uses": record.uses,
        "conferences": stamps,
    }
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(found, separators=(",", ":")), encoding="utf-8")
    os.replace(temporary, path)


def _stamp_json(stamped: Stamped) -> list[object]:
    until = stamped.until.isoformat() if stamped.until is not None else None
    return [stamped.stamp, stamped.made.isoformat(), until, stamped.feeds, stamped.sessions, list(stamped.parts)]


def _stamps(found: object) -> dict[str, Stamped]:
    """The record's conferences; one it cannot read is left out (its files are then keyed one by one)."""
    stamps: dict[str, Stamped] = {}
    for slug, entry in found.items() if isinstance(found, dict) else ():
        try:
            stamp, made, until, feeds, sessions, parts = entry
            stamped = Stamped(
                str(stamp),
                datetime.fromisoformat(made),
                datetime.fromisoformat(until) if until is not None else None,
                int(feeds),
                int(sessions),
                tuple(str(key) for key in parts),
            )
        except (TypeError, ValueError):
            continue
        if stamped.made.tzinfo is not None and (stamped.until is None or stamped.until.tzinfo is not None):
            stamps[str(slug)] = stamped
    return stamps


def load(path: Path) -> Record:
    """The last build's record (files, parts, the parts each file was joined from), or nothing
    when there is none, it cannot be read or it is of another format (then every file is read
    and compared, and every part made again, once)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _NONE
    if not isinstance(record, dict) or record.get("format") != _FORMAT:
        return _NONE
    files = record.get("files")
    if not isinstance(files, dict):
        return _NONE
    parts, uses = record.get("parts"), record.get("uses")
    return Record(
        {
            str(name): (entry[0], entry[1])
            for name, entry in files.items()
            if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], str)
        },
        {
            str(key): known
            for key, known in (parts.items() if isinstance(parts, dict) else ())
            if isinstance(known, str)
        },
        {
            str(name): [key for key in keys if isinstance(key, str)]
            for name, keys in (uses.items() if isinstance(uses, dict) else ())
            if isinstance(keys, list)
        },
        _stamps(record.get("conferences")),
    )
