"""Where `confcal build` writes, and what it remembers of the last build.

Beside the output directory OUTDIR (so no host publishes it) the build keeps a record,
`.OUTDIR.confcal-build.sqlite` (build_record.py), of every file it wrote: its
path, the key of the inputs it was made from, and a digest of its bytes. A rebuild then
- skips a file whose key is unchanged without making it (no rendering, no reading, no stat);
- makes a file whose key changed, and writes it only when its bytes changed (so its mtime, and
  a static host's ETag, stay as they were);
- removes the files of the last build it did not make this time (a dropped feed disappears).
The record is read a conference at a time, when the build first asks for one of its files (a
conference carried over is never read), and only the entries that changed are written back.
This build's own entries are written at its end; until then those of the conferences it is done
with go to disk once they are many (build_spill.py).

Keys are digests of everything a file is made from (the sessions' fields, the conference, the
site's base URL) together with `code_key()`, a digest of confcal's own rendering code, templates
and static files and of the versions of the libraries that write bytes, so a new release never
reuses an old rendering. The record is trusted without a stat per file: a sample of its files is
checked (a deleted or replaced directory is noticed, and every file is then read and compared);
a single file deleted by hand comes back when its content changes, or at once after deleting
the record. A stray file of the kinds a build makes in the directories it owns (a feed, a QR
code, a session's page) is removed by the next build that adds or drops a file in that
directory, or that has no record: a build that only changes files' bytes lists no directory.

Parts of files (a schedule page's day sections) can be kept as well, in `.OUTDIR.confcal-build.parts/`
beside the record, by the key of their inputs: a page whose key changed is joined from the parts
that did not change instead of rendered whole. A part read back is used only when its bytes have
the check the record gave them; one copied unread (the events'), when it has the length and
modification time the record gave it. A piece of a `Joined` file (`Output.piece`: a day of a
document listing every session) is kept where that file holds it rather than in a part file,
so its bytes are written once: the record gives its place, its SHA-256 and the file's size and
modification time, and it is copied from there (or read back and checked) while the file has them.
The record names the parts each file was joined from, so a file skipped by
its key keeps its parts for a later build that needs them (a build with no change uses no part
but must not lose them); the other parts this build did not use are removed.

The record also names, for each conference, the stamp of everything its files are made from
besides its sessions (build_conferences.py): a later build with the same stamp, while no
cancelled session's grace period has ended, takes the conference's files as they are (`carry`)
without reading its schedule.

A file is written beside its target and renamed over it, so a host serving the directory never
sees a half-written file. Into an empty directory (a first build, or one whose output was
deleted) files are written in place instead, created exclusively: no host has served a byte of
them yet, and the temporary name and the rename are a real cost over tens of thousands of files.
Files made whole, and hard links, are written some dozens at a time once made (`Output.flush`),
and every file before the record is saved. The default conference's copy at the root is made of
hard links to the files under its base path: the bytes are the same, written once. The record
does not name the links: it names the conference the root mirrors, whose files' entries say
what the links hold.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import BinaryIO, TypeVar

from feeds import urls
from server.site.build_bodies import Body, Joined, Segment, Span, Twin, segment
from server.site.build_files import (
    GATHERED,
    copy_in,
    create_new,
    file_stamp,
    hard_link,
    holds_files,
    open_new,
    read_if_there,
    remove_empty,
    same_bytes,
    same_file,
    temporary_path,
    write_all,
    write_digested,
    write_named,
    write_segments,
)
from server.site.build_keys import body_digest, joined_digest
from server.site.build_record import PARTS, Book, Changes, Made, Stamped, record_path, remove_old_record
from server.site.build_spill import Spilled

_SAMPLE = 64
_DIRS = 1024  # directories known to exist, remembered at most
# Whole files and links made before any is written (`Output._wait`), at most: rendering many
# pages and then writing them all costs less CPU than taking turns, where each file's system
# calls push the renderer's code and data out of the processor's caches.
_WAITING_FILES = 64
_WAITING_BYTES = 4 << 20
T = TypeVar("T")


# What the record needs of a file made (in this process or a worker): (its key, the digest of
# its bytes), the parts it was joined from, whether its bytes were written.
Entry = tuple[Made, list[str] | None, bool]


def _part_check(crc: int, length: int) -> str:
    """What the record keeps of a part to know it intact: its CRC-32 and length (a part
    `Output.renew_unread` wrote has its size and modification time instead, `file_stamp`, after
    `::`; a piece kept in a file, its place, `_PLACED`). A part is this build's own
    file, named by a digest of its inputs, so the check is against damage (a torn or cut
    write), not a forger; CRC-32 runs at twice SHA-256's speed, and a rebuild of a large
    conference reads hundreds of megabytes of parts."""
    return f"{crc:08x}{length:x}"


# What the record keeps of a piece held in a file a build joined it into (`Output.piece`), in
# place of a part's check: `@start:end:sha:size:mtime:path` (the file's stamp, `file_stamp`, as
# it was written; the site-relative path last, as it may hold a colon).
_PLACED = "@"


class Output:
    """One build's writes under `root`; `finish()` removes what the last build made and this
    one did not, and saves the record."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # Paths as strings below: pathlib's joins are costly over tens of thousands of files.
        self._root = os.fspath(root)
        self.record = record_path(root)
        self._changed: list[str] = []
        self.parts = self.record.with_name(PARTS.format(root.resolve().name))
        self._book = Book(self.record)
        self._last_parts = self._book.parts()
        self._last_stamps = self._book.conferences()
        # The record's files are read an area at a time (`_area`), when the build first asks for
        # one of them: a conference carried over is never read.
        self._last: dict[str, Made] = {}
        self._last_uses: dict[str, list[str]] = {}
        self._loaded: set[tuple[str, str]] = set()
        self._carried: set[tuple[str, str]] = set()
        # Ranges of an area taken as the last build left them (`keep_range`): not read with the
        # area; a file there is read on its own when asked for (`_looked`: those read so far).
        self._ranges: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._looked: set[str] = set()
        # The default conference's copy at the root is hard links to its files: not in the record,
        # which names the conference (its base, `c/{slug}/`) whose files the root mirrors.
        self._last_mirrored = self._book.mirrored()
        self._mirrored: str | None = None
        self._linked: list[str] = []  # the files linked at the root by this build
        self._samples = self._book.samples()
        # The record is void when empty, or when the directory was emptied or replaced since: read
        # and compare instead.
        self._whole = self._book.empty() or not all(os.path.isfile(f"{self._root}/{p}") for p in self._samples)
        if self._whole:
            self._last_stamps, self._samples, self._last_mirrored = {}, [], None
        self._parts: dict[str, str] = {}
        self._stamps: dict[str, Stamped] = {}
        # Without a record, a file already there may hold the bytes this build makes (a build that
        # kept no record): compare before writing. With one, or into an empty directory, a file the
        # record does not name is new: a failed open per file was 4% of a first build.
        self._compare = self._whole and holds_files(self._root)
        # Into an empty directory nothing is published yet: files are created in place (`put`).
        self._fresh = self._whole and not self._compare
        self._made = Spilled()  # those of the conferences done moved to disk (`spill`)
        # Part keys each file of this build was joined from; `_using` collects them during a make.
        self._uses: dict[str, list[str]] = {}
        self._using: list[str] | None = None
        # Directories known to exist: those this build made or found (a mkdir that fails costs
        # less than the dirname of every recorded file).
        self._dirs: set[str] = set()
        # Files and links made but not yet written (`_wait`): a file's bytes, a link's source path.
        self._waiting: list[tuple[str, bytes | str]] = []
        self._waiting_bytes = 0

    def _entry(self, relative: str) -> Made | None:
        """What the last build recorded of `relative`."""
        found = self._last.get(relative)
        if found is None and not self._whole:
            area = _area(relative)
            if area not in self._loaded:
                self._load(area)
                found = self._last.get(relative)
            elif relative not in self._looked and _within(relative, self._ranges.get(area, ())):
                found = self._look(relative)
        return found

    def _load(self, area: tuple[str, str]) -> None:
        self._loaded.add(area)
        kept = self._ranges.get(area)
        if area == _ROOT:
            # The root's files are those before and after every conference's base.
            ranges = [("", _CONFERENCES), (_CONFERENCES[:-1] + "0", "")]
        elif kept is not None:
            # The area but for the kept ranges (sorted, apart): the gaps before, between, after.
            lows = [area[0], *(high for _, high in kept)]
            highs = [*(low for low, _ in kept), area[1]]
            ranges = list(zip(lows, highs, strict=True))
        else:
            ranges = [area]
        for low, high in ranges:
            self._read(low, high)

    def _read(self, low: str, high: str) -> None:
        for path, made, uses in self._book.files(low, high):
            self._last[path] = made
            if uses:
                self._last_uses[path] = uses

    def _look(self, relative: str) -> Made | None:
        """The last build's entry of `relative`, in a range not read with its area."""
        self._looked.add(relative)
        self._read(relative, relative + "\0")
        return self._last.get(relative)

    def put(self, relative: str, key: str | None, make: Callable[[], Body]) -> str:
        """Make and write `relative` unless the last build made it from the same key (key None:
        always make it); returns the digest of its bytes. `make` gives the bytes, or the pieces
        they are joined from (`Body`), which are written and digested one by one."""
        last = self._entry(relative)
        if key is not None and last is not None and last[0] == key:
            self._take(relative, last)
            return last[1]
        self._using = []
        try:
            body = make()
            if isinstance(body, Twin):
                return self._twin(relative, key, last, body.source)
            if isinstance(body, bytes):
                whole: bytes | None = body
                made = body_digest(body)
            elif isinstance(body, Joined):
                whole, made = None, self._write_joined(relative, last, body)
            else:
                # Pieces ask for their parts as they come: still within this file's make.
                whole, made = None, self._write_pieces(relative, last, body)
        finally:
            using, self._using = self._using, None
        self._made[relative] = (key, made)
        if using:
            self._uses[relative] = list(dict.fromkeys(using))
        if whole is None or (last is not None and last[1] == made):
            return made
        target = f"{self._root}/{relative}"
        if last is None and self._compare and same_bytes(target, whole):
            return made  # made by a build that kept no record
        self._wait(relative, whole)
        self._changed.append(relative)
        return made

    def _wait(self, relative: str, body: bytes | str) -> None:
        """Write `relative` with the next files and links (`flush`): `body` is its bytes, or the
        site-relative path of the file it is a hard link to, which was put before it."""
        self._waiting.append((relative, body))
        self._waiting_bytes += len(body)
        if len(self._waiting) >= _WAITING_FILES or self._waiting_bytes >= _WAITING_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write the files and links waiting (`_wait`), in the order they were made."""
        waiting, self._waiting, self._waiting_bytes = self._waiting, [], 0
        for relative, body in waiting:
            self._parent(relative)
            target = f"{self._root}/{relative}"
            if isinstance(body, str):
                hard_link(f"{self._root}/{body}", target)
            elif not (self._fresh and create_new(target, body)):
                # Beside and renamed over, so a host never serves half a file.
                temporary = temporary_path(target)
                with open(temporary, "wb", buffering=0) as out:
                    write_all(out.fileno(), body)
                os.replace(temporary, target)

    def _twin(self, relative: str, key: str | None, last: Made | None, source: str) -> str:
        """`relative` as a hard link to `source` (`Twin`), unless it holds the same bytes already
        (the file there then stays as it is); the digest of its bytes."""
        made = self._made[source][1]
        self._made[relative] = (key, made)
        target, origin = f"{self._root}/{relative}", f"{self._root}/{source}"
        self.flush()  # `source` may be waiting: compared and linked as written
        same = last[1] == made if last is not None else self._compare and same_file(target, origin)
        if same:
            return made  # the same bytes as the file there: it stays as it is
        self._parent(relative)
        if hard_link(origin, target):
            self._changed.append(relative)
        return made

    def _write_pieces(self, relative: str, last: Made | None, pieces: Iterable[bytes | memoryview]) -> str:
        """Write `pieces` as `relative` as `put` writes bytes, without ever joining them (the
        documents listing every session are tens of megabytes each at 50,000 sessions),
        digested as written (`_write_beside`). Returns the digest."""
        return self._write_beside(relative, last, partial(write_digested, pieces), buffered=True)[0]

    def _write_joined(self, relative: str, last: Made | None, joined: Joined) -> str:
        """Write `joined` as `relative` as `_write_pieces` writes pieces, each `Span` copied from
        its file. The digest recorded also names the file's size and modification time once
        written, which `source` checks the next build's file against instead of reading it."""
        segments, known = joined.segments, joined.sha
        if known is None and isinstance(segments, Sequence):
            # Segments given at once: their digest is known before anything is written.
            known = joined_digest(s.sha for s in segments)
        if known is not None and last is not None and last[1].partition(":")[0] == known:
            return last[1]  # the same bytes as the file there: it stays as it is
        placed: list[tuple[str, int, int, str]] = []
        held = _placing(segments, placed)
        write: Callable[[BinaryIO], str] = partial(write_segments, held)
        if joined.sha is not None:
            write = partial(write_named, held, joined.sha)
        made, wrote = self._write_beside(relative, last, write, buffered=False)
        # The pieces are kept where the file holds them (its bytes are those written, or the
        # same bytes already there), while it has the size and modification time it has now.
        stamp = file_stamp(f"{self._root}/{relative}")
        if stamp is not None:
            for key, start, end, sha in placed:
                self._parts[key] = f"{_PLACED}{start}:{end}:{sha}:{stamp}:{relative}"
        if not wrote:
            return made if last is None else last[1]
        return f"{made}:{stamp}"

    def _write_beside(
        self, relative: str, last: Made | None, write: Callable[[BinaryIO], str], *, buffered: bool
    ) -> tuple[str, bool]:
        """Write `relative` with `write`, which returns the digest of what it wrote: into a
        temporary file beside the target, renamed over it unless the digest is the last build's
        or, without a record, the bytes are those there already (the file then keeps its
        mtime); into an empty directory, in place. The digest, and whether the file was written."""
        target = f"{self._root}/{relative}"
        self._parent(relative)
        out = open_new(target, buffered) if self._fresh else None
        written = target if out is not None else temporary_path(target)
        if out is None:
            out = open(written, "wb", buffering=GATHERED if buffered else 0)  # noqa: SIM115 - closed below, removed on failure
        try:
            with out:
                made = write(out)
        except BaseException:
            os.unlink(written)
            raise
        if written != target:
            same = (
                last[1].partition(":")[0] == made if last is not None else self._compare and same_file(target, written)
            )
            if same:
                os.unlink(written)  # the same bytes as the file there: it stays as it is
                return made, False
            os.replace(written, target)
        self._changed.append(relative)
        return made, True

    def source(self, relative: str) -> str | None:
        """The path of `relative` when the last build wrote it `Joined` and it still has the size
        and modification time it had then: its bytes are then those the build wrote, and its
        ranges may be taken as `Span`s. A file changed by hand since has another modification
        time (nanoseconds, or the file system's own step), or another size."""
        last = self._entry(relative)
        stamp = None if last is None else last[1].partition(":")[2]
        path = f"{self._root}/{relative}"
        return path if stamp and stamp == file_stamp(path) else None

    def keep(self, relative: str, root: str | None = None) -> bool:
        """Take `relative` as the last build made it, without making, keying or reading it (the
        caller knows it is made from what it was made from then), and `root`, its copy at the
        root, as the hard link the last build left; False, with nothing taken, when the last
        build did not record it or mirrored another conference at the root."""
        last = self._entry(relative)
        if last is None:
            return False
        if root is not None:
            if self._last_mirrored is None or relative != self._last_mirrored + root:
                return False
            self._mirror(root, relative)
        self._take(relative, last)
        return True

    def keep_range(self, prefixes: Sequence[str], looked: Iterable[str], mirrored: bool = False) -> bool:
        """Take every file the last build recorded under `prefixes` (directories of one
        conference's, each ending in "/") as it left them, and when `mirrored` (the conference's
        copy at the root) their hard links there, without reading their entries: all but those
        at the paths `looked`, read now, which this build makes again or which are removed. A
        conference's sessions' files are a hundred thousand at 50,000 sessions, of which a change
        touches a few. False, with nothing taken, when the record is not read by area, the
        conference's area was read already, or the root mirrored another conference (or, when
        not `mirrored`, this one) then."""
        area = _area(prefixes[0])
        if self._whole or area == _ROOT or area in self._loaded or area in self._carried:
            return False
        base = area[0]
        if any(_area(prefix) != area or not prefix.endswith("/") for prefix in prefixes):
            raise ValueError(f"not directories of one conference: {prefixes}")
        if not mirrored:
            if self._last_mirrored == base:
                return False  # its copies at the root go: each file's entry is needed
        else:
            if self._last_mirrored != base or self._mirrored not in (None, base):
                return False
            self._mirrored = base
        self._ranges[area] = sorted((prefix, prefix[:-1] + "0") for prefix in set(prefixes))  # "0" follows "/"
        self._load(area)
        for path in looked:
            self._look(path)
        return True

    def _taken_under(self, directory: str) -> set[str]:
        """The files under `directory` (one a build owns) this build took whole with a range
        (`keep_range`), not read on their own, by their names there (at the root: the mirrored
        conference's under the same directory). Read only when the directory is swept, and then
        only the range's rows below it: a speaker's feed that ended reads the speakers' feeds,
        not every session's files."""
        cut = 0
        if _area(f"{directory}/") == _ROOT:
            if self._mirrored is None:
                return set()
            cut, directory = len(self._mirrored), self._mirrored + directory
        low, high = f"{directory}/", f"{directory}0"  # "0" follows "/"
        return {
            path[cut:]
            for start, end in self._ranges.get(_area(low), ())
            if start < high and low < end
            for path, _, _ in self._book.files(max(start, low), min(end, high))
            if path not in self._last
        }

    def _take(self, relative: str, last: Made) -> None:
        """`relative` as the last build made it, without making it."""
        self._made[relative] = last
        uses = self._last_uses.get(relative)
        if uses:
            self._uses[relative] = uses  # its parts stay kept: a later change may join them again

    @property
    def written(self) -> list[str]:
        """The files this build wrote (new, or with other bytes than before), as site-relative
        paths: a large build writes tens of thousands, and what reads this only counts them."""
        return list(self._changed)

    def outdated(self, relative: str, key: str) -> bool:
        """Whether `put(relative, key, ...)` would make the file: the last build made it from
        another key, or did not make it."""
        last = self._entry(relative)
        return last is None or last[0] != key

    def make(self, relative: str, key: str | None, make: Callable[[], Body]) -> Entry:
        """`put`, and what this build's record needs of the file, for `adopt` in another
        process's `Output` (build_workers.py)."""
        written = len(self._changed)
        self.put(relative, key, make)
        return self._made[relative], self._uses.get(relative), len(self._changed) > written

    def adopt(self, relative: str, entry: Entry) -> None:
        """Record `relative` as another process made and wrote it (`make`'s entry)."""
        made, uses, written = entry
        self._made[relative] = made
        if uses:
            self._uses[relative] = uses
        if written:
            self._changed.append(relative)

    def adopt_link(self, relative: str, source: str, written: bool) -> None:
        """Record `relative` as another process linked it to `source` (`link`'s outcome)."""
        self._mirror(relative, source)
        if written:
            self._changed.append(relative)

    def _mirror(self, relative: str, source: str) -> None:
        base = source[: len(source) - len(relative)]
        if self._mirrored is None:
            self._mirrored = base
        if base != self._mirrored or not source.endswith(relative):
            raise ValueError(f"{relative} is not {source} at the root of {self._mirrored}")
        self._linked.append(source)

    def link(self, relative: str, source: str) -> bool:
        """`relative`, the root's copy of the default conference's `source` (already put in this
        build), as a hard link to it, unless it is one already from the last build with the same
        bytes; whether it was written."""
        made = self._made[source]
        self._mirror(relative, source)
        # The root's file is the last build's copy of its default conference's: of this one's,
        # or of another's with the same bytes (a static file, when the default changed), which
        # then stays as it is too.
        mirrored = self._last_mirrored
        last = self._entry(mirrored + relative) if mirrored is not None else None
        if last is not None and last[1] == made[1]:
            return False  # the same bytes as the file there, so not written again
        if self._fresh:
            # Into an empty directory a link is new, so it is written: with the files (`_wait`).
            self._wait(relative, source)
            self._changed.append(relative)
            return True
        target, origin = f"{self._root}/{relative}", f"{self._root}/{source}"
        self.flush()  # `source` may be waiting
        self._parent(relative)
        if last is None and self._compare and same_file(target, origin):
            return False  # made by a build that kept no record
        if not hard_link(origin, target):
            return False
        if last is None or last[1] != made[1]:
            self._changed.append(relative)
            return True
        return False

    def part(self, key: str, make: Callable[[], bytes]) -> bytes:
        """The part made from the inputs `key` names: read back from where a file holds it
        (`piece`) or from the last build's copy when intact, else `make()`, kept for the next
        build."""
        if self._using is not None:
            self._using.append(key)
        body = self.placed_bytes(key)
        if body is not None:
            self.hold(key)
            return body
        body = self._part_file(key)
        if body is None:
            body = make()
            self.renew(key, body)
        return body

    def _part_file(self, key: str) -> bytes | None:
        """The bytes of the part file `key`: this build's as written, the last build's when intact."""
        known = self._parts.get(key)
        if known is not None and not known.startswith(_PLACED):
            return read_if_there(self.parts / key)
        return self.kept(key)

    def piece(self, key: str, make: Callable[[], bytes]) -> Span | Segment:
        """`part`, as a segment of a `Joined` file: a `Span` of the file a build joined it
        into (`_placed`), unread; else its bytes (its part file's, checked, or made) with their
        SHA-256. Kept where the file being written then holds it, not as a part file of its
        own: the documents listing every session are joined from a piece a day, whose bytes
        would otherwise be written twice."""
        if self._using is not None:
            self._using.append(key)
        placed = self._placed(key)
        if placed is not None:
            self.hold(key)
            return placed
        body = self._part_file(key)
        return segment([body if body is not None else make()], key)

    def placed_bytes(self, key: str) -> bytes | None:
        """The bytes of the piece `key` where a file holds it (`piece`), checked by their SHA-256;
        None when no file holds it as recorded."""
        placed = self._placed(key)
        return None if placed is None else _span_bytes(placed)

    def _placed(self, key: str) -> Span | None:
        """The piece `key` as a `Span` of the file a build (this one or the last) joined it into,
        while that file has the size and modification time it had then."""
        known = self._parts.get(key) or self._last_parts.get(key)
        if known is None or not known.startswith(_PLACED):
            return None
        start, end, sha, size, modified, relative = known[1:].split(":", 5)
        path = f"{self._root}/{relative}"
        if file_stamp(path) != f"{size}:{modified}":
            return None
        return Span(path, int(start), int(end), sha, key)

    def kept(self, key: str) -> bytes | None:
        """The last build's part `key` when it is intact (kept for the next build too), else None."""
        known = self._last_parts.get(key)
        if known is None:
            return None
        body = read_if_there(self.parts / key)
        if body is None or _part_check(zlib.crc32(body), len(body)) != known.partition(":")[0]:
            return None
        self._parts[key] = known
        return body

    def kept_unread(self, key: str) -> str | None:
        """The path of the last build's part `key` when it has the size and modification time
        recorded with it (`renew_unread`): taken unread, as a `Span` is, and kept for the next
        build; else None."""
        known = self._last_parts.get(key)
        if known is None:
            return None
        stamp = _unread_stamp(known)
        path = f"{self.parts}/{key}"
        if not stamp or stamp != file_stamp(path):
            return None
        self._parts[key] = known
        return path

    def hold(self, key: str) -> None:
        """Keep the last build's part `key` (as recorded, unread) for the next build."""
        known = self._last_parts.get(key)
        if known is not None:
            self._parts.setdefault(key, known)

    def renew(self, key: str, body: bytes) -> None:
        """Keep `body` as the part `key` for the next build, in place of any other."""
        written = self._write_part(key, lambda out: out.write(body))
        self._parts[key] = _part_check(zlib.crc32(body), written)

    def renew_unread(self, key: str, pieces: Iterable[bytes | Span]) -> None:
        """`renew`, for a part the next build takes unread (`kept_unread`), so it may be joined
        from `Span`s of files a build wrote (copied by the kernel, never read here): it is known
        by its size and modification time, as a file copied from is, not by a CRC-32 of bytes
        never read (so `kept` never takes it)."""
        self._write_part(key, partial(copy_in, pieces))
        self._parts[key] = f"::{file_stamp(f'{self.parts}/{key}') or ''}"

    def _write_part(self, key: str, write: Callable[[BinaryIO], T]) -> T:
        """The part `key` written by `write` (unbuffered) beside it and renamed into place, the
        temporary removed when `write` fails; what `write` returns."""
        self.parts.mkdir(parents=True, exist_ok=True)
        temporary = self.parts / f".{key}.tmp"
        try:
            with open(temporary, "wb", buffering=0) as out:
                made = write(out)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        os.replace(temporary, self.parts / key)
        return made

    def spill(self) -> None:
        """Between two conferences: what this build made of the files so far goes to disk when
        it has grown large (build_spill.py), read back when asked for (at `finish`)."""
        self._made.spill()

    def stamped(self, conference: str) -> Stamped | None:
        """What the last build recorded of `conference` (slug), if it wrote it."""
        return self._last_stamps.get(conference)

    def stamp(self, conference: str, stamped: Stamped) -> None:
        """Record `conference` as this build wrote it."""
        self._stamps[conference] = stamped

    def held(self) -> set[str]:
        """The keys of the parts this build keeps so far."""
        return set(self._parts)

    def carry(self, conference: str, default: bool) -> Stamped:
        """Take `conference` as the last build wrote it (its stamp holds, build_conferences.py):
        its files (under its base, and at the root when it is the `default`) and the parts it
        kept; nothing is made, read or checked, as for a file skipped by its key. Its entries in
        the record stay as they are, unread. Returns its stamp, recorded again."""
        stamped = self._last_stamps[conference]
        self._stamps[conference] = stamped
        for key in stamped.parts:
            self.hold(key)
        self._carried.add(_area(urls.conference_base(conference) + "/"))
        if default:
            self._carried.add(_ROOT)
        return stamped

    def finish(self, owned: Iterable[tuple[str, bool]]) -> None:
        """Remove the last build's files this build did not make, any other file of the kinds
        a build makes in the `owned` directories ((path, recursive): `_owned_files`) and the
        directories that leaves empty, and save the record."""
        self.flush()
        if not self._whole:
            # The areas of the record this build neither read nor carried are gone whole (a
            # conference no longer in the store).
            for area in self._areas():
                if area not in self._loaded and area not in self._carried:
                    self._load(area)
        gone = [path for path in self._last if path not in self._made and _area(path) not in self._carried]
        stale = list(gone)
        mirrored, last_mirrored = self._mirrored, self._last_mirrored
        if _ROOT in self._carried:
            mirrored = last_mirrored
        root_copies: set[str] | None = None  # `_root_copies()`, made once when first needed
        # The root's copies of the files the last build mirrored there, and this build does not.
        if last_mirrored is not None and _ROOT not in self._carried:
            if last_mirrored == mirrored:
                stale.extend(path[len(last_mirrored) :] for path in gone if path.startswith(last_mirrored))
            else:
                area = _area(last_mirrored)
                if area not in self._loaded:
                    self._load(area)
                root_copies = self._root_copies()
                stale.extend(
                    path[len(last_mirrored) :]
                    for path in self._last
                    if path.startswith(last_mirrored) and path[len(last_mirrored) :] not in root_copies
                )
        last, last_uses, uses = self._last, self._last_uses, self._uses
        # Paths only, the rows made as they are written: a first build records every file.
        changed = [
            path for path, made in self._made.items() if last.get(path) != made or last_uses.get(path) != uses.get(path)
        ]
        # The directories whose set of files changed (a session added: `sessions/`); in any other,
        # every file there not made by this build is a stray left since the last build that did
        # look: not worth listing a directory of every session for a speaker's feed that ended.
        unsettled = {_top(path) for path in gone} | {_top(path) for path in changed if path not in last}
        if mirrored is not None and mirrored == last_mirrored:
            unsettled |= {top[len(mirrored) :] for top in unsettled if top.startswith(mirrored)}
        # Into an empty directory, every file there is this build's: nothing to look for.
        for directory, recursive in () if self._fresh else owned:
            area = _area(f"{directory}/")
            # A conference carried over has the files the last build left: nothing to look for.
            if area not in self._carried and (
                self._whole or directory in unsettled or (area == _ROOT and mirrored != last_mirrored)
            ):
                made: Collection[str] = self._made
                if area == _ROOT:
                    root_copies = self._root_copies() if root_copies is None else root_copies
                    made = root_copies
                taken = self._taken_under(directory)
                found = _owned_files(self.root, directory, recursive)
                stale.extend(path for path in found if path not in made and path not in taken)
        emptied: set[str] = set()
        for path in stale:
            try:
                os.unlink(f"{self._root}/{path}")
            except FileNotFoundError:
                continue
            emptied.add(os.path.dirname(path))
        remove_empty(self._root, emptied)
        changed.sort()  # in the table's order: SQLite inserts rows so at twice the speed
        # Kept: the parts any recorded file is joined from, and those this build used or held.
        joined = {} if self._whole else self._book.joined()
        for path in gone:
            joined.pop(path, None)
        for path in changed:
            used = uses.get(path)
            if used:
                joined[path] = used
            else:
                joined.pop(path, None)
        kept = {key: self._last_parts[key] for keys in joined.values() for key in keys if key in self._last_parts}
        kept.update(self._parts)
        parts_gone = [key for key in self._last_parts if key not in kept]
        for key in parts_gone:
            (self.parts / key).unlink(missing_ok=True)
        parts = {key: known for key, known in kept.items() if self._last_parts.get(key) != known}
        for key, known in parts.items():
            if known.startswith(_PLACED):
                (self.parts / key).unlink(missing_ok=True)  # kept in a file now, not in a part
        stamps = None if self._stamps == self._last_stamps else self._stamps
        moved = mirrored != self._last_mirrored
        samples = [path for path in self._samples if path not in stale]
        if len(samples) < _SAMPLE // 2:
            # Spread over this build's files: a deleted or replaced directory of any conference shows.
            names = changed if self._whole else sorted(self._made)
            samples = names[:: max(1, len(names) // _SAMPLE)]
        if not (
            moved
            or changed
            or gone
            or parts
            or parts_gone
            or stamps is not None
            or self._whole
            or samples != self._samples
        ):
            self._book.close()
            self._made.close()
            return  # the record on disk says all this already (a build without a change)
        self.root.mkdir(parents=True, exist_ok=True)
        files = (
            (path, *made, " ".join(uses[path]) if path in uses else None) for path, made in self._made.among(changed)
        )
        every = self._stamps if self._whole else stamps
        changes = Changes(files, gone, parts, parts_gone, every, samples, self._whole, mirrored)
        self._book.save(changes)
        self._book.close()
        self._made.close()
        remove_old_record(self.root)

    def _root_copies(self) -> set[str]:
        """The files at the root this build linked or made: the root's copies and `_GLOBAL`
        (those taken with a range: `_taken_under`; a range is taken only while the root
        mirrors the conference it did)."""
        found = {path for path in _GLOBAL if path in self._made}
        if self._mirrored is not None:
            cut = len(self._mirrored)
            found.update(source[cut:] for source in self._linked)
        return found

    def _areas(self) -> Iterator[tuple[str, str]]:
        """The record's areas: each conference's base, and the root."""
        yield _ROOT
        found = self._book.first_after(_CONFERENCES)
        while found is not None and found.startswith(_CONFERENCES):
            area = _area(found)
            yield area
            found = self._book.first_after(area[1])

    def forked(self) -> None:
        """Start this process's own tallies of what it makes (a worker process forked from the
        build's, build_workers.py, which sends back each file's entry): the build's tallies of
        tens of thousands of files stay as the fork left them, shared, instead of being copied
        page by page as the worker adds to them (or whole, when a dict or set grows)."""
        # The build's entries stay as the fork left them, never read here: dropped, the
        # mapping would close its database, which this process shares with the build's.
        self._inherited = self._made
        self._made, self._uses, self._changed, self._dirs = Spilled(), {}, [], set()
        self._waiting, self._waiting_bytes = [], 0  # the build's process writes those

    def _parent(self, relative: str) -> None:
        """Make the directory of `relative` if it is not there."""
        parent = os.path.dirname(relative)
        if parent not in self._dirs:
            if len(self._dirs) >= _DIRS:
                # Files come a directory at a time, and every session's page has its own: the
                # directories of a whole build are 10 MiB of names at 50,000 sessions.
                self._dirs.clear()
            path = f"{self._root}/{parent}"
            try:
                os.mkdir(path)  # one call for the usual case: its parent is there
            except FileExistsError:
                pass  # there already, or made by another of the build's processes just now
            except FileNotFoundError:
                os.makedirs(path, exist_ok=True)
            self._dirs.add(parent)


# What a build makes in the directories it owns, and nothing else would put there: feeds and
# downloads, QR codes, and the page of each session, speaker, track, room and day (in its own
# directory, as `index.html`).
_OWNED_SUFFIXES = (".ics", ".svg")


def _owned_files(root: Path, directory: str, recursive: bool) -> Iterator[str]:
    """Root-relative names of the files of the kinds a build makes in `directory` (and below,
    if `recursive`): its .ics and .svg files, and each subdirectory's page (named whether or not
    it is there: a missing one is not removed)."""
    try:
        entries = list(os.scandir(root / directory))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        name = f"{directory}/{entry.name}"
        if entry.is_file(follow_symlinks=False):
            if entry.name.endswith(_OWNED_SUFFIXES):
                yield name
        elif entry.is_dir(follow_symlinks=False):
            yield f"{name}/{urls.PAGE_FILE}"
            if recursive:
                yield from _owned_files(root, name, recursive)


_ROOT = ("", "")  # the files outside every conference's base (the default's copy)
_CONFERENCES = urls.conference_base("")  # every conference's base is below it
# Files written at the root for every build, whatever conference is the default.
_GLOBAL = (urls.CONFERENCES_API, urls.json_twin(urls.CONFERENCES_API))


def _area(relative: str) -> tuple[str, str]:
    """The range of paths the record reads at once with `relative`: its conference's (`c/{slug}/`),
    the files at the root, or only itself for `_GLOBAL`."""
    if relative.startswith(_CONFERENCES):
        end = relative.find("/", len(_CONFERENCES))
        if end > 0:
            return relative[: end + 1], relative[:end] + "0"  # "0" follows "/"
    if relative in _GLOBAL:
        return relative, relative + "\0"
    return _ROOT


def _top(relative: str) -> str:
    """The directory of its conference (or of the root) that `relative` is in: `c/{slug}/feeds`
    for `c/{slug}/feeds/day/x.ics`, `feeds` for `feeds/day/x.ics`."""
    base, _ = _area(relative)
    start = len(base) if base.endswith("/") else 0
    end = relative.find("/", start)
    return relative[:end] if end > 0 else relative


def _within(relative: str, ranges: Iterable[tuple[str, str]]) -> bool:
    return any(low <= relative < high for low, high in ranges)


def _placing(segments: Iterable[Span | Segment], placed: list[tuple[str, int, int, str]]) -> Iterator[Span | Segment]:
    """`segments` in turn, noting in `placed` where the file they are written into holds each
    piece (`Output.piece`: its key, start, end and SHA-256)."""
    at = 0
    for found in segments:
        size = len(found) if isinstance(found, Span) else sum(map(len, found.pieces))
        if found.key and found.sha:
            placed.append((found.key, at, at + size, found.sha))
        at += size
        yield found


def _span_bytes(span: Span) -> bytes | None:
    """The bytes of `span` when they have its SHA-256, else None."""
    try:
        with open(span.path, "rb", buffering=0) as source:
            body = os.pread(source.fileno(), len(span), span.start)
    except OSError:
        return None
    return body if len(body) == len(span) and hashlib.sha256(body).hexdigest() == span.sha else None


def _unread_stamp(known: str) -> str:
    """The size and modification time a part taken unread was recorded with (`_part_check`),
    empty for any other part."""
    check, _, stamp = known.partition("::")
    return "" if check else stamp
