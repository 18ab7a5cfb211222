"""The public changelog of a conference (`changes/`), its Atom feed (`changes.atom`, RFC 4287)
and the recent changes by session (`api/changes`) the page's "your picks changed" note reads.

All three are joined from the entries of the conference's visible versions (changes_entries.py),
made from its changelog (server.store.changelog) and a `Site`, memoized per snapshot like every
document: a new version means a new snapshot, so they are rebuilt exactly when the schedule
changes, and their ETags stay put otherwise. Only visible versions are listed (the first, which
published the schedule, and any that added, moved, retitled, cancelled or restored a session).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from server.links import Site
from server.pages import params
from server.pages.changes_entries import Entry, atom_body, entry_of, page_body, recent_body
from server.pages.context import route_context
from server.pages.render import CSP
from server.snapshot.conditional import HTML, JSON, Representation
from server.snapshot.published import Published
from server.store.changelog_since import Before
from server.store.changes import ChangeKind, VersionChanges, description_line

ATOM = "application/atom+xml; charset=utf-8"


class ChangeLog(Protocol):
    """What the routes need of server.store.Store."""

    def changelog(self, conference: str, given: Before | None = None) -> tuple[VersionChanges, ...]: ...


def visible(published: Published, log: ChangeLog) -> tuple[VersionChanges, ...]:
    """The conference's visible versions, newest first; read from the store once per snapshot,
    given the snapshot's sessions for the rows they hold (a large conference's first version is
    every session: parsing it nearly doubled a server's memory for a moment)."""

    def read() -> tuple[VersionChanges, ...]:
        version = published.version
        given = None if version is None else Before(version, published.schedule.sessions)
        return tuple(reversed([e for e in log.changelog(published.conference.slug, given) if e.visible]))

    return published.memo(("changelog",), read)


def entries(published: Published, site: Site, log: ChangeLog) -> tuple[Entry, ...]:
    """The entries of the conference's visible versions, newest first; once per snapshot and site."""
    zone = published.conference.zone
    return published.memo(
        ("changes-entries", site.base_url), lambda: tuple(entry_of(e, site, zone) for e in visible(published, log))
    )


def _modified(published: Published, log: ChangeLog) -> datetime | None:
    found = visible(published, log)
    return found[0].created if found else None


def changes_page(published: Published, site: Site, log: ChangeLog) -> Representation:
    def build() -> Representation:
        body = page_body(published.conference, entries(published, site, log))
        return Representation(body, HTML, _modified(published, log), (("content-security-policy", CSP),))

    return published.memo(("changes-page", site.base_url), build)


def atom(published: Published, site: Site, log: ChangeLog) -> Representation:
    """The Atom feed (RFC 4287): one entry per visible version, newest first."""

    def build() -> Representation:
        body = atom_body(published.conference, site, entries(published, site, log))
        return Representation(body, ATOM, _modified(published, log))

    return published.memo(("changes-atom", site.base_url), build)


def recent(published: Published, site: Site, log: ChangeLog) -> Representation:
    """`recent_body` of the conference's visible versions (the same bytes under any site)."""

    def build() -> Representation:
        return Representation(recent_body(entries(published, site, log)), JSON, _modified(published, log))

    return published.memo(("changes-json",), build)


def change_notes(published: Published, log: ChangeLog) -> dict[str, str]:
    """For the personal feed: each session's latest visible move or retitle, as the first line
    of its DESCRIPTION (`Moved from 11:00 Master Stage`, `Retitled from Old title`); one
    line, both joined by `; ` when one version did both. Sessions never moved or retitled
    (and cancellations, which STATUS:CANCELLED already says) have none."""

    def build() -> dict[str, str]:
        zone = published.conference.zone
        notes: dict[str, str] = {}
        for entry in visible(published, log):  # newest first: the first note per session wins
            found: dict[str, list[str]] = {}
            for change in entry.changes:
                line = description_line(change, zone)  # "" when the old side is not known
                if line and change.kind in (ChangeKind.MOVED, ChangeKind.RETITLED) and change.id not in notes:
                    found.setdefault(change.id, []).append(line)
            notes.update((sid, "; ".join(lines)) for sid, lines in found.items())
        return notes

    return published.memo(("change-notes",), build)


def _endpoint(make: Callable[[Published, Site, ChangeLog], Representation]) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        context = route_context(request)
        published = await context.current(request)
        rep = await anyio.to_thread.run_sync(make, published, context.site(request), context.store)
        return context.send(request, rep, params.NO_PARAMS)

    return endpoint


_page, _feed, _document = _endpoint(changes_page), _endpoint(atom), _endpoint(recent)

routes = [
    Route(urls.ROUTE_CHANGES, _page, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_CHANGES_ATOM, _feed, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_API_CHANGES, _document, methods=["GET", "HEAD"]),
    Route(urls.json_twin(urls.ROUTE_API_CHANGES), _document, methods=["GET", "HEAD"]),
]
