"""The changelog documents of a static build (changes/, changes.atom, api/changes),
joined from one kept part per version.

What a version shows in them (changes_entries.Entry) never changes once the version is
published: its changes are between its own rows and the rows before it, both fixed in the
store's history, and it is rendered in the conference's zone with links under the site's base
URL. So a build keeps each version's entry by the code, the conference, the base URL and the
version's `Stamps` (its number, when it was made, the first version whose rows the store
recorded), and a rebuild after an ingest renders the new version alone, reading from the store
only the stamps and what the new version changed (Store.changelog_since) instead of every row
of every version.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import datetime
from functools import partial
from typing import Protocol

from feeds import urls
from server.links import Site
from server.pages.changes import ChangeLog, entries
from server.pages.changes_entries import Entry, atom_body, entry_of, page_body, recent_body
from server.site.build_keys import code_key, digest
from server.site.build_output import Output
from server.snapshot.published import Published
from server.store.changelog_since import Before, Stamps
from server.store.changes import VersionChanges


class KeptChangeLog(ChangeLog, Protocol):
    """What a build needs of server.store.Store to make only the versions it did not keep."""

    def changelog_stamps(self, conference: str) -> Stamps: ...

    def changelog_since(
        self, conference: str, since: int, live: int, before: Before | None = None
    ) -> tuple[VersionChanges, ...] | None: ...


def entry_key(published: Published, site: Site, stamps: Stamps, version: int, created: datetime) -> str:
    """The key of a version's kept entry: what it is made from (Stamps), the conference (its
    zone), the site's base URL (the Atom content's links) and the code."""
    return digest(code_key(), "changes entry", published.conference, site.base_url, version, created, stamps.recorded)


def kept_entries(
    published: Published, site: Site, log: KeptChangeLog, output: Output, before: Before | None = None
) -> tuple[Entry, ...]:
    """`changes.entries`, each version's entry taken from the last build when it kept it. A kept
    part is (the version's live sessions, its entry or None when it changed nothing visible).
    `before`: the conference's sessions as of a version (the schedule the last build kept, or
    this build's), which spare looking up or parsing the rows they hold."""
    slug, zone = published.conference.slug, published.conference.zone
    stamps = log.changelog_stamps(slug)
    versions = stamps.versions
    kept: list[tuple[int, Entry | None]] = []
    made: dict[int, VersionChanges] = {}

    def make(position: int) -> bytes:
        version = versions[position][0]
        if version not in made:
            # The first version not kept, and those after it (kept or not), from the one before.
            since = log.changelog_since(slug, versions[position - 1][0], kept[-1][0], before) if position else None
            made.update((e.version, e) for e in (log.changelog(slug, before) if since is None else since))
        entry = made[version]
        shown = dataclasses.asdict(entry_of(entry, site, zone)) if entry.visible else None
        return json.dumps([entry.sessions, shown], ensure_ascii=False).encode()

    for position, (version, created) in enumerate(versions):
        key = entry_key(published, site, stamps, version, created)
        live, shown = json.loads(output.part(key, partial(make, position)))
        kept.append((live, None if shown is None else Entry(**shown)))
    return tuple(entry for _, entry in reversed(kept) if entry is not None)


def changes_files(
    published: Published, site: Site, log: KeptChangeLog, output: Output | None = None, before: Before | None = None
) -> Iterator[tuple[str, bytes]]:
    """For `confcal build`: the three documents at the paths the server answers them, from the
    versions' entries `output` kept (all made anew without one; `before` as `kept_entries`)."""
    found = entries(published, site, log) if output is None else kept_entries(published, site, log, output, before)
    yield urls.CHANGES + urls.PAGE_FILE, page_body(published.conference, found)
    yield urls.CHANGES_ATOM, atom_body(published.conference, site, found)
    yield urls.API_CHANGES, recent_body(found)
