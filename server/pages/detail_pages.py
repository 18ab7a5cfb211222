"""A page per session (`sessions/{id}/`) and per speaker (`speakers/{slug}/`).

Both are server-rendered from the snapshot like the schedule page (Jinja2, autoescaped), link
with relative paths (so they work under a conference's base path and in a static build), and
are memoized per snapshot. The session page gives the time in the conference's zone (the
script adds the viewer's), the abstract, and every way to add it to a calendar; the speaker
page lists their sessions and their feed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from feeds.catalogue import FeedKind, day_name
from feeds.model import Session, Speaker
from server.links import Site
from server.pages import params
from server.pages.calendar_links import feed_links, offered_links
from server.pages.cards import page_path, session_card
from server.pages.context import route_context
from server.pages.detail_html import session_main, shell, speaker_main
from server.pages.render import CSP
from server.snapshot.conditional import HTML, Representation
from server.snapshot.published import Published, last_modified


def speaker_path(speaker: Speaker) -> str:
    return urls.speaker_page(speaker.slug)


@dataclass(frozen=True)
class SpeakerEntry:
    speaker: Speaker
    sessions: tuple[Session, ...]


def speakers(published: Published) -> dict[str, SpeakerEntry]:
    """Every speaker of the live sessions by slug, with their sessions in time order (each
    once, as their feed lists them); the spelling of their first session names them."""

    def build() -> dict[str, SpeakerEntry]:
        # The catalogue's speaker feeds hold each speaker's live sessions in the whole feed's
        # order, patched with each change: grouping every session again would cost a pass over
        # the conference for each version (thousands of speakers at a large one).
        found: dict[str, SpeakerEntry] = {}
        for feed in published.feeds_of(FeedKind.SPEAKER):
            slug, sessions = feed.spec.slug, feed.sessions
            if sessions:
                first = next(person for person in sessions[0].speakers if person.slug == slug)
                found[slug] = SpeakerEntry(first, sessions)
        return found

    return published.memo(("speakers",), build)


def heading(published: Published) -> dict[str, Any]:
    """What base.html's header shows of the conference (its name, and when)."""
    conference = published.conference
    when = day_name(conference.start_date)
    if conference.end_date != conference.start_date:
        when = f"{when} – {day_name(conference.end_date)}"
    return {"conference": conference, "when": when}


def html_page(body: bytes, sessions: tuple[Session, ...]) -> Representation:
    """A page's representation: HTML, last changed with `sessions`, with the pages' CSP."""
    return Representation(body, HTML, last_modified(sessions), (("content-security-policy", CSP),))


def session_representation(published: Published, site: Site, session: Session) -> Representation:
    def build() -> Representation:
        conference = published.conference
        card = session_card(published, session)
        start = session.start.astimezone(conference.zone)
        date = day_name(start.date())
        text = session.description.replace("\r\n", "\n").strip()
        description = (
            f"{session.title}: {date}, {card.start_label}–{card.end_label} {card.zone_label}"
            + (f", {session.room.name}" if session.room else "")
            + f". {conference.name}."
        )
        main = session_main(
            conference,
            card,
            date,
            [p.strip() for p in text.split("\n\n") if p.strip()],
            offered_links(conference, session),
            [(p, speaker_path(p)) for p in session.speakers],
        )
        body = shell(conference, 2).page(session.title, description, main)
        return html_page(body, (session,))

    return published.memo(("session-page", site.base_url, session.id), build)


def speaker_representation(published: Published, site: Site, entry: SpeakerEntry) -> Representation:
    def build() -> Representation:
        conference = published.conference
        person = entry.speaker
        feed = published.feed(FeedKind.SPEAKER.value, person.slug)
        description = (
            f"{person.name}"
            + (f" ({person.affiliation})" if person.affiliation else "")
            + f" at {conference.name}: {len(entry.sessions)} "
            + ("session" if len(entry.sessions) == 1 else "sessions")
            + ", and a calendar feed of them."
        )
        links = feed_links(site, feed.path, feed.spec.title) if feed else None
        cards = [session_card(published, s) for s in entry.sessions]
        body = shell(conference, 2).page(person.name, description, speaker_main(conference, person, cards, links))
        return html_page(body, entry.sessions)

    return published.memo(("speaker-page", site.base_url, entry.speaker.slug), build)


def detail_files(published: Published, site: Site) -> Iterator[tuple[str, bytes]]:
    """For `confcal build`: every session and speaker page as `…/index.html`."""
    everything = published.feed(FeedKind.ALL.value, "")
    for session in everything.sessions if everything else ():
        if params.is_safe_id(session.id):
            body = session_representation(published, site, session).body
            yield page_path(session) + urls.PAGE_FILE, body
    for entry in speakers(published).values():
        body = speaker_representation(published, site, entry).body
        yield speaker_path(entry.speaker) + urls.PAGE_FILE, body


async def session_page(request: Request) -> Response:
    context = route_context(request)
    session_id = params.id_segment(request.path_params["id"])
    published = await context.current(request)
    found = published.session(session_id)
    if found is None:
        return params.not_found("no such session")
    rep = await anyio.to_thread.run_sync(session_representation, published, context.site(request), found)
    return context.send(request, rep, params.NO_PARAMS)


async def speaker_page(request: Request) -> Response:
    context = route_context(request)
    slug = params.slug_segment(request.path_params["slug"])
    published = await context.current(request)
    entry = speakers(published).get(slug)
    if entry is None:
        return params.not_found("no such speaker")
    rep = await anyio.to_thread.run_sync(speaker_representation, published, context.site(request), entry)
    return context.send(request, rep, params.NO_PARAMS)


routes = [
    Route(urls.ROUTE_SESSION_PAGE, session_page, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_SPEAKER_PAGE, speaker_page, methods=["GET", "HEAD"]),
]


__all__ = ["detail_files", "routes", "heading", "html_page", "speaker_path", "speakers"]
