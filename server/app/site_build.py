"""The static site `confcal build` writes: the same bytes the server answers for the same paths.

Files are taken from one `Published` snapshot through the same representation functions the
routes use, so a static host or CDN serves exactly what `confcal serve` would. A file whose
bytes did not change is not rewritten (its mtime stays, so sync tools skip it); feed and session
files left over from an earlier build are removed, so a dropped feed disappears rather than
going stale.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from server.app.api import feeds_representation, sessions_representation
from server.app.links import Site
from server.app.page import STATIC, page_files
from server.app.params import is_safe_id
from server.app.published import Published, session_path

# Directories whose every file the build owns (anything else in OUTDIR is left alone).
OWNED = ("feeds", "sessions")


def site_files(published: Published, site: Site) -> Iterator[tuple[str, bytes]]:
    """(site-relative path, bytes) of every generated file except static assets."""
    for feed in published.feeds:
        yield feed.path, feed.representation.body
    for session in published.schedule.sessions:
        # Ids come from feeds.identity (hex); the check guards the file system all the same.
        if is_safe_id(session.id):
            yield session_path(session), published.session_download(session).body
    feeds_doc = feeds_representation(published, site).body
    sessions_doc = sessions_representation(published, site).body
    yield "api/feeds", feeds_doc
    yield "api/feeds.json", feeds_doc
    yield "api/sessions", sessions_doc
    yield "api/sessions.json", sessions_doc
    yield from page_files(published, site)


def write_site(published: Published, outdir: Path, site: Site) -> list[Path]:
    """Write the site under `outdir`; returns the files whose bytes changed (or are new)."""
    changed: list[Path] = []
    wanted: set[Path] = set()
    for relative, body in site_files(published, site):
        target = outdir / relative
        wanted.add(target)
        if _write_if_changed(target, body):
            changed.append(target)
    for asset in sorted(STATIC.rglob("*")):
        if asset.is_file():
            target = outdir / "static" / asset.relative_to(STATIC)
            if _write_if_changed(target, asset.read_bytes()):
                changed.append(target)
    for owned in OWNED:
        for stale in sorted((outdir / owned).rglob("*.ics")):
            if stale not in wanted:
                stale.unlink()
    return changed


def _write_if_changed(target: Path, body: bytes) -> bool:
    if target.is_file() and target.read_bytes() == body:
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    # Write beside and rename, so a host serving OUTDIR never sees a half-written feed.
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_bytes(body)
    os.replace(temporary, target)
    return True
