"""What a maker gives as a file's bytes in a static build: whole, in pieces, joined from
segments (the kept ones copied by the kernel, never read), or another file's (a hard link)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """Bytes `start` to `end` of a file a build wrote before (the last build's file of the same
    path, `Output.source`; a file a piece was joined into, `Output.piece`; a part taken unread,
    `Output.kept_unread`), whose SHA-256 is
    `sha` (empty where no file's digest is made from it: a part copied into a part, a file whose
    maker gives its digest, `Joined.sha`): copied into the file being written by the kernel,
    never read here."""

    path: str
    start: int
    end: int
    sha: str
    # The piece it is (`Output.piece`), kept where the file being written holds it; empty for
    # any other bytes.
    key: str = ""

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Segment:
    """Bytes made by this build, in pieces, with their SHA-256 (`segment`; empty where the file's
    digest is not made from its segments': `Joined.sha`)."""

    pieces: Sequence[bytes | memoryview]
    sha: str
    key: str = ""  # as a `Span`'s


def segment(pieces: Sequence[bytes | memoryview], key: str = "") -> Segment:
    sha = hashlib.sha256()
    for piece in pieces:
        sha.update(piece)
    return Segment(pieces, sha.hexdigest(), key)


@dataclass(frozen=True)
class Joined:
    """A file's bytes as segments, each with its SHA-256: those of the last build's file or of
    kept parts (`Span`s), and those made now. A document listing every session is tens of
    megabytes at 50,000 sessions, of which one change touches a segment or two: the file's
    digest is the SHA-256 of its segments' digests, so unchanged bytes are neither read nor
    digested again, and their copy is the kernel's (copy_file_range). The segments may come
    one at a time (an iterator), so the file is never held whole."""

    segments: Iterable[Span | Segment]
    # The file's digest when its maker has it from finer parts than the segments (`joined_digest`
    # of a document's rows, each row's kept): the same bytes then have the same digest however
    # they are cut into segments, so a file made again with the same bytes is not written.
    sha: str | None = None

    @classmethod
    def of(cls, pieces: Iterable[bytes | Span | Segment]) -> Joined:
        """The file of `pieces`, each made piece's bytes a segment of their own, one at a time."""
        return cls(segment([piece]) if isinstance(piece, bytes) else piece for piece in pieces)


@dataclass(frozen=True)
class Twin:
    """A file with the bytes of `source`, a file this build put before it (a document's `.json`
    twin): a hard link to it, so its bytes are neither made nor written twice."""

    source: str


# A file's bytes as its maker gives them: whole, the pieces they are joined from in order, their
# segments, or another file's.
Body = bytes | Joined | Twin | Iterable[bytes | memoryview]
