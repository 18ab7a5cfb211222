"""What the tests read of a build and of the feed renders that the code that runs never asks for:
the paths of the files a build wrote, every file of a site made in one go, the renders in
progress."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from server.links import Site
from server.site.build_output import Output
from server.site.build_record import Book, Stamped, record_path
from server.site.site_build import site_parts
from server.snapshot.feed_renders import FeedRenders
from server.snapshot.published import Published


class PathsOutput(Output):
    @property
    def changed(self) -> list[Path]:
        """The files this build wrote (new, or with other bytes than before)."""
        return [self.root / relative for relative in self.written]


def recorded(root: Path) -> dict[str, list[str | None]]:
    """Path -> [key of its inputs, digest of its bytes], from the record beside `root`."""
    with sqlite3.connect(record_path(root)) as db:
        return {path: [key, made] for path, key, made in db.execute("SELECT path, key, digest FROM files")}


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
        body = make()
        # A document listing every session comes in pieces, written one by one by a build.
        yield path, body if isinstance(body, bytes) else b"".join(body)


def in_progress(renders: FeedRenders) -> int:
    """How many feeds `renders` is rendering now."""
    return len(renders._pending)


class CountedRenders(FeedRenders):
    @property
    def in_progress(self) -> int:
        return in_progress(self)
