"""The static site `confcal build` writes: the same bytes the server answers for the same paths.

Every conference is written under its base (`c/{slug}/`, urls.py) and the default one at the
root as well, with `api/conferences` listing them, as `confcal serve` answers them.

Files are taken from one `Published` snapshot through the same representation functions the
routes use, so a static host or CDN serves exactly what `confcal serve` would. A file whose
bytes did not change is not rewritten (its mtime stays, so sync tools skip it); feed and session
files left over from an earlier build are removed, so a dropped feed disappears rather than
going stale.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from feeds.exports import EXPORTERS
from server.app import urls
from server.app.api import (
    conferences_representation,
    feeds_representation,
    sessions_representation,
)
from server.app.exports import EXPORT_ROUTES, export_representation
from server.app.links import (
    ConferenceLink,
    Site,
    conference_site,
    other_conferences,
)
from server.app.page import STATIC, page_files
from server.app.params import is_safe_id
from server.app.published import Published
from server.store.report import ConferenceSummary

# More files of a conference from outside its snapshot (the changelog reads the store's history).
Extra = Callable[[Published, Site], Iterable[tuple[str, bytes]]]

# Directories whose every file the build owns (anything else in OUTDIR is left alone).
OWNED = ("feeds", "sessions")


def site_files(
    published: Published, site: Site, others: tuple[ConferenceLink, ...] = ()
) -> Iterator[tuple[str, bytes]]:
    """(site-relative path, bytes) of every generated file except static assets."""
    for feed in published.feeds:
        yield feed.path, feed.representation.body
    for session in published.schedule.sessions:
        # Ids come from feeds.identity (hex); the check guards the file system all the same.
        if is_safe_id(session.id):
            yield urls.session_download(session.id), published.session_download(session).body
    feeds_doc = feeds_representation(published, site).body
    sessions_doc = sessions_representation(published, site).body
    yield urls.API_FEEDS, feeds_doc
    yield urls.json_twin(urls.API_FEEDS), feeds_doc
    yield urls.API_SESSIONS, sessions_doc
    yield urls.json_twin(urls.API_SESSIONS), sessions_doc
    for route, name in EXPORT_ROUTES.items():
        # schedule.xml / schedule.json for conference apps, as the server answers them.
        yield route.lstrip("/"), export_representation(published, site, EXPORTERS[name]).body
    yield from page_files(published, site, others)


def write_conferences(
    snapshots: Sequence[Published],
    summaries: tuple[ConferenceSummary, ...],
    outdir: Path,
    root: Site,
    default: str | None,
    extra: Extra | None = None,
) -> list[Path]:
    """Write every conference's site and `api/conferences`; returns the changed files."""
    document = conferences_representation(summaries, root).body
    changed = [
        outdir / path
        for path in (urls.CONFERENCES_API, urls.json_twin(urls.CONFERENCES_API))
        if _write_if_changed(outdir / path, document)
    ]
    for published in snapshots:
        slug = published.conference.slug
        site = conference_site(root, slug, default)
        others = other_conferences(summaries, slug, root)
        if slug == default:
            changed += write_site(published, outdir, site, others, extra)
        changed += write_site(published, outdir / urls.conference_base(slug), site, others, extra)
    return changed


def write_site(
    published: Published,
    outdir: Path,
    site: Site,
    others: tuple[ConferenceLink, ...] = (),
    extra: Extra | None = None,
) -> list[Path]:
    """Write one conference's site under `outdir`; returns the files whose bytes changed (or
    are new)."""
    changed: list[Path] = []
    wanted: set[Path] = set()
    more = extra(published, site) if extra is not None else ()
    for relative, body in itertools.chain(site_files(published, site, others), more):
        target = outdir / relative
        wanted.add(target)
        if _write_if_changed(target, body):
            changed.append(target)
    for asset in sorted(STATIC.rglob("*")):
        if asset.is_file():
            target = outdir / urls.static(asset.relative_to(STATIC).as_posix())
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
