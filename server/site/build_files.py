"""How a static build's files reach the disk, with the fewest system calls a file: created
exclusively and written by descriptor, written beside and renamed over, hard links, and kept
bytes copied from an earlier file by the kernel (copy_file_range) without being read."""

from __future__ import annotations

import errno
import filecmp
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from server.site.build_bodies import Segment, Span
from server.site.build_keys import joined_digest

# Bytes of pieces joined into one write(2), about: a file of pieces is written a run at a time,
# not a system call a piece (nor one of the file system's block size, what `open` buffers).
GATHERED = 1 << 20
# Linux's copy_file_range(2); elsewhere, bytes are copied through the process.
_COPY: Callable[[int, int, int, int], int] | None = getattr(os, "copy_file_range", None)


def holds_files(root: str) -> bool:
    """Whether the directory `root` is there and not empty."""
    try:
        with os.scandir(root) as entries:
            return any(True for _ in entries)
    except (FileNotFoundError, NotADirectoryError):
        return False


def temporary_path(target: str) -> str:
    """Where `target`'s new bytes are written before they are renamed over it: beside it, hidden."""
    directory, name = os.path.split(target)
    return f"{directory}/.{name}.tmp"


# A new file's flags: made by this call or not at all, its bytes as given (no newline
# translation on Windows). Python makes the descriptor non-inheritable itself (PEP 446).
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def create_new(target: str, body: bytes) -> bool:
    """Write `body` as the new file `target`; False when a file is there already (made since the
    build began: it is replaced whole instead). Through its descriptor alone: a file object
    costs an fstat(2) and an object for each of a build's hundreds of thousands of files."""
    try:
        out = os.open(target, _NEW, 0o666)  # the mode open() gives, less the umask
    except FileExistsError:
        return False
    try:
        write_all(out, body)
    finally:
        os.close(out)
    return True


def write_all(out: int, body: bytes | memoryview) -> None:
    """Every byte of `body` to the descriptor `out` (a write(2) may take fewer than given)."""
    view = memoryview(body)
    while view:
        view = view[os.write(out, view) :]


def open_new(target: str, buffered: bool = True) -> BinaryIO | None:
    """`target` created for writing, or None when a file is there already (`create_new`)."""
    try:
        return open(target, "xb", buffering=GATHERED if buffered else 0)  # noqa: SIM115 - the caller closes it
    except FileExistsError:
        return None


def hard_link(origin: str, target: str) -> bool:
    """`target` as a hard link to `origin`, in place of any file there; whether it was not one
    already."""
    try:
        os.link(origin, target)  # a new file: nothing to replace
    except FileExistsError:
        if os.path.samefile(origin, target):
            # Already that file (a build whose record was lost): renaming a link over another
            # of the same file does nothing (rename(2)), so the temporary link would stay.
            return False
        temporary = temporary_path(target)
        try:
            os.link(origin, temporary)
        except FileExistsError:
            os.unlink(temporary)
            os.link(origin, temporary)
        os.replace(temporary, target)
    return True


def file_stamp(path: str) -> str | None:
    """A file's size and modification time in nanoseconds, as recorded with a file or part
    that is copied from unread; None when there is no file."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def write_digested(pieces: Iterable[bytes | memoryview], out: BinaryIO) -> str:
    """Each piece into `out` in turn; the SHA-256 of them all."""
    sha = hashlib.sha256()
    for piece in pieces:
        sha.update(piece)
        out.write(piece)
    return sha.hexdigest()[:32]


def write_segments(segments: Iterable[Span | Segment], out: BinaryIO) -> str:
    """Each segment's bytes into `out` (unbuffered) in turn (`copy_in`); returns the file's
    digest (`Joined`)."""
    shas: list[str] = []

    def each() -> Iterator[bytes | memoryview | Span]:
        for found in segments:
            shas.append(found.sha)
            if isinstance(found, Span):
                yield found
            else:
                # One write a segment: a chunk of a feed is hundreds of events.
                yield found.pieces[0] if len(found.pieces) == 1 else b"".join(found.pieces)

    copy_in(each(), out)
    return joined_digest(shas)


def write_named(segments: Iterable[Span | Segment], sha: str, out: BinaryIO) -> str:
    """`write_segments`, for a file whose digest its maker gave (`Joined.sha`): returns that."""
    write_segments(segments, out)
    return sha


def copy_in(pieces: Iterable[bytes | memoryview | Span], out: BinaryIO) -> None:
    """Each piece into `out` (unbuffered: written through its descriptor, `write_all`) in turn, a
    `Span`'s bytes by copy_file_range(2) from its file, in the kernel (or as shared extents where
    the file system clones them). Pieces made here are written a run at a time (`GATHERED`): a
    part of events is one piece an event."""
    sources: dict[str, int] = {}
    gathered: list[bytes | memoryview] = []
    size = 0
    descriptor = out.fileno()
    try:
        for piece in pieces:
            if not isinstance(piece, Span):
                gathered.append(piece)
                size += len(piece)
                if size < GATHERED:
                    continue
            if gathered:  # before a span, or a full run
                write_all(descriptor, b"".join(gathered))
                gathered, size = [], 0
            if isinstance(piece, Span):
                source = sources.get(piece.path)
                if source is None:
                    source = sources[piece.path] = os.open(piece.path, os.O_RDONLY)
                copy_range(source, descriptor, piece.start, piece.end)
        if gathered:
            write_all(descriptor, b"".join(gathered))
    finally:
        for source in sources.values():
            os.close(source)


def copy_range(source: int, out: int, start: int, end: int) -> None:
    at = start
    while at < end:
        copied = _copied(source, out, end - at, at)
        if copied == 0:
            raise OSError(errno.EIO, f"{end - at} bytes missing: a file the build copies from was cut")
        at += copied


def _copied(source: int, out: int, count: int, at: int) -> int:
    """Copy up to `count` bytes of `source` from `at` to `out`'s end; how many were copied. Where
    the kernel cannot copy between these files (no copy_file_range, or other file systems),
    through this process."""
    if _COPY is not None:
        try:
            return _COPY(source, out, count, at)
        except OSError as error:
            if error.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
                raise
    block = os.pread(source, min(count, 1 << 20), at)
    write_all(out, block)
    return len(block)


def same_file(target: str, written: str) -> bool:
    """Whether the file `target` is `written` (a hard link to it) or holds its bytes (read a
    block at a time)."""
    try:
        return os.path.samefile(target, written) or filecmp.cmp(target, written, shallow=False)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return False


def same_bytes(target: str, body: bytes) -> bool:
    try:
        with open(target, "rb") as existing:
            return existing.read() == body
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return False


def read_if_there(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def remove_empty(root: str, directories: Iterable[str]) -> None:
    """Remove each of `directories` (relative to `root`) and its parents below `root` that are
    empty: a fresh build would not make them (a host would answer a session's removed page with
    a listing or a refusal instead of not found)."""
    for directory in sorted(set(directories), key=len, reverse=True):
        while directory:
            try:
                os.rmdir(f"{root}/{directory}")
            except OSError:  # not empty (or gone already): nor are its parents
                break
            directory = os.path.dirname(directory)
