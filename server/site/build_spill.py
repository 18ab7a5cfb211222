"""What a build made of each file so far, by path, with the conferences it finished on disk.

A build's record of its files (build_output.py's `Output._made`) grows by a path, a key, a
digest and their tuple, some 300 bytes, for every file it makes, and it needs them only at its
end (the record saved, the files it did not make removed) and for the conference it is making
(a root copy's link or a twin asks for its source's digest). A build of many conferences held
hundreds of megabytes of them, and its process, once large, forks no more workers
(build_workers.FORK_BELOW). So once the entries in memory pass `SPILL_PAST`, between two
conferences, they are moved to a private temporary SQLite database (deleted when closed, its
pages cached up to SQLite's small default), and read back from there when asked for.
A single conference's build never reaches it between conferences: nothing is written to disk.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, MutableMapping

from server.site.build_record import Made

# Entries held in memory past which `spill` moves them to disk: a few tens of megabytes.
SPILL_PAST = 100_000


class Spilled(MutableMapping[str, Made]):
    """A mapping of a build's files to what it made of them, part of it on disk (`spill`).
    An entry set after its path was spilled is the one it holds from then on."""

    def __init__(self, spill_past: int | None = None) -> None:
        self._held: dict[str, Made] = {}
        self._db: sqlite3.Connection | None = None
        self._spill_past = SPILL_PAST if spill_past is None else spill_past

    def __getitem__(self, path: str) -> Made:
        found = self._held.get(path)
        if found is not None:
            return found
        if self._db is not None:
            row = self._db.execute("SELECT key, made FROM made WHERE path = ?", (path,)).fetchone()
            if row is not None:
                return row[0], row[1]
        raise KeyError(path)

    def get(self, path: str, default: Made | None = None) -> Made | None:  # type: ignore[override]
        # Not Mapping's (a KeyError caught): a build asks once or twice for every file.
        found = self._held.get(path)
        if found is not None or self._db is None:
            return found if found is not None else default
        try:
            return self[path]
        except KeyError:
            return default

    def __contains__(self, path: object) -> bool:
        if path in self._held:
            return True
        if self._db is None or not isinstance(path, str):
            return False
        return self._db.execute("SELECT 1 FROM made WHERE path = ?", (path,)).fetchone() is not None

    def __setitem__(self, path: str, made: Made) -> None:
        self._held[path] = made

    def __delitem__(self, path: str) -> None:
        raise TypeError("a build never forgets a file it made")

    def __iter__(self) -> Iterator[str]:
        for path, _ in self.items():
            yield path

    def items(self) -> Iterator[tuple[str, Made]]:  # type: ignore[override]  # one pass over the disk, not a view
        """Every entry once: those spilled (unless held again since), then those held."""
        held = self._held
        if self._db is not None:
            for path, key, made in self._db.execute("SELECT path, key, made FROM made"):
                if path not in held:
                    yield path, (key, made)
        yield from held.items()

    def among(self, paths: list[str]) -> Iterator[tuple[str, Made]]:
        """The entries of `paths` (sorted, each an entry's), in their order: one pass over the
        disk's in the same order (its key's; SQLite compares the UTF-8 bytes, whose order is
        the code points'), not a query for each."""
        held = self._held
        if self._db is None:
            yield from ((path, held[path]) for path in paths)
            return
        rows = self._db.execute("SELECT path, key, made FROM made ORDER BY path")
        row = rows.fetchone()
        for path in paths:
            found = held.get(path)
            if found is None:
                while row[0] != path:  # an entry's: reached before the rows run out
                    row = rows.fetchone()
                found = (row[1], row[2])
            yield path, found

    def __len__(self) -> int:
        return sum(1 for _ in self.items())

    def spill(self) -> None:
        """Move the entries held to disk, when they are more than `spill_past`."""
        if len(self._held) <= self._spill_past:
            return
        if self._db is None:
            # "": a private database on disk, removed when closed.
            self._db = sqlite3.connect("", isolation_level=None)
            self._db.execute("PRAGMA journal_mode = OFF")
            self._db.execute("PRAGMA synchronous = OFF")
            self._db.execute("CREATE TABLE made (path TEXT PRIMARY KEY, key TEXT, made TEXT NOT NULL) WITHOUT ROWID")
        self._db.execute("BEGIN")
        self._db.executemany(
            "INSERT OR REPLACE INTO made VALUES (?, ?, ?)", ((path, *made) for path, made in self._held.items())
        )
        self._db.execute("COMMIT")
        self._held = {}

    def close(self) -> None:
        """Remove what was spilled."""
        if self._db is not None:
            self._db.close()
            self._db = None
