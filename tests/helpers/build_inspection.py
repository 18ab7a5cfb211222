"""What the tests read of a build and of the feed renders that the code that runs never asks for:
the paths of the files a build wrote, every file of a site made in one go, the renders in
progress; and a store's conferences built as `confcal build` builds them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from server.links import Site
from server.site.build_bodies import Body, Joined, Segment, Span, Twin
from server.site.build_conferences import Built, StoreLoader, write_store
from server.site.build_output import Output
from server.site.build_record import Book, Stamped, record_path
from server.site.site_build import site_parts
from server.snapshot.feed_renders import FeedRenders
from server.snapshot.published import Published
from server.store import Store
from server.store.report import ConferenceSummary


def directories(out: Path) -> set[str]:
    """Every directory below `out`, an empty one included."""
    return {path.relative_to(out).as_posix() for path in out.rglob("*") if path.is_dir()}


def file_states(out: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under `out`: its bytes, inode and modification time (ns)."""
    found = {}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            stat = path.stat()
            found[path.relative_to(out).as_posix()] = (path.read_bytes(), stat.st_ino, stat.st_mtime_ns)
    return found


class NotingLoader(StoreLoader):
    """A `StoreLoader` noting in `read` the conferences whose schedule it read."""

    def __init__(self, store: Store, now: datetime, read: list[str]) -> None:
        super().__init__(store, now)
        self.read = read

    def __call__(self, summary: ConferenceSummary, calendars: str | None, output: Output) -> Published | None:
        self.read.append(summary.slug)
        return super().__call__(summary, calendars, output)


def build_store(
    store: Store, out: Path, *, now: datetime, base_url: str, default: str | None, read: list[str] | None = None
) -> Built:
    """Build every conference of `store` into `out` as `confcal build` does, in this process,
    noting in `read` the conferences whose schedule was read."""
    load = NotingLoader(store, now, read if read is not None else [])
    return write_store(
        store, store.conferences(), out, Site.of(base_url), default, now=now, base_url=base_url, load=load
    )


def file_bytes(out: Path) -> dict[str, bytes]:
    """Every file under `out` by its path there."""
    return {f.relative_to(out).as_posix(): f.read_bytes() for f in sorted(out.rglob("*")) if f.is_file()}


class PathsOutput(Output):
    @property
    def changed(self) -> list[Path]:
        """The files this build wrote (new, or with other bytes than before)."""
        return [self.root / relative for relative in self.written]


def recorded(root: Path) -> dict[str, list[str | None]]:
    """Path -> [key of its inputs, digest of its bytes], from the record beside `root` (without
    the size and modification time a file written joined is recorded with: when it ran)."""
    with sqlite3.connect(record_path(root)) as db:
        rows = db.execute("SELECT path, key, digest FROM files")
        return {path: [key, made.partition(":")[0]] for path, key, made in rows}


def recorded_stamps(root: Path) -> dict[str, Stamped]:
    """Each conference's stamp, from the record beside `root`."""
    book = Book(record_path(root))
    try:
        return book.conferences()
    finally:
        book.close()


def recorded_mirror(root: Path) -> str:
    """The base of the conference whose files the root's copy links to, from the record."""
    book = Book(record_path(root))
    try:
        found = book.mirrored()
    finally:
        book.close()
    assert found is not None
    return found


def site_files(published: Published, site: Site) -> Iterator[tuple[str, bytes]]:
    """(site-relative path, bytes) of every file of one conference's site."""
    for path, _, make in site_parts(published, site):
        yield path, body_bytes(make())


def body_bytes(body: Body) -> bytes:
    """The bytes of a file as a maker gives them: a document listing every session comes in
    pieces or segments, written one by one by a build."""
    if isinstance(body, bytes):
        return body
    # A twin is a link to a file the build wrote, made only when the build has an output.
    assert not isinstance(body, Twin), f"a link to {body.source} has no bytes of its own"
    if isinstance(body, Joined):
        return b"".join(b"".join(s.pieces) if isinstance(s, Segment) else span_bytes(s) for s in body.segments)
    return b"".join(body)


def span_bytes(span: Span) -> bytes:
    """The bytes a `Span` names, read from its file."""
    with open(span.path, "rb") as found:
        found.seek(span.start)
        return found.read(len(span))


def in_progress(renders: FeedRenders) -> int:
    """How many feeds `renders` is rendering now."""
    return len(renders._pending)


class CountedRenders(FeedRenders):
    @property
    def in_progress(self) -> int:
        return in_progress(self)
