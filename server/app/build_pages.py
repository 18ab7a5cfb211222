"""The schedule pages of a static build (issue 12): each keyed on what it shows, each joined
from parts a rebuild mostly reuses.

A page is its frame (filters, day tabs, counts), its days' sections and the subscribe section
(page_parts.py). Its key is the frame's text with the keys of its parts: a day's section is
keyed on that day's sessions, the subscribe section on the feeds and how many events each
has. So a session moved within one day changes that day's page and the all-days page (and the
front page when it is the first day), and a rebuild joins those from the sections it kept
(`Output.part`), rendering only the changed day's section.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property, partial

from server.app import urls
from server.app.build_output import Output, digest
from server.app.links import ConferenceLink, Site
from server.app.page import PageFrame, day_page_slugs, page_body, page_frame
from server.app.page_parts import day_sessions
from server.app.published import Published
from server.app.view import View


class PageParts:
    """A build's `page_parts.Fragments`: every part keyed on its inputs and kept by `output`
    (or made each time without one)."""

    def __init__(
        self, output: Output | None, base: str, published: Published, site: Site, sessions: dict[str, str]
    ) -> None:
        self._output, self._base, self._published, self._site = output, base, published, site
        self._sessions = sessions  # session id -> digest of the session
        self._subscribe: dict[int, bytes] = {}

    @cached_property
    def feeds(self) -> str:
        """A digest of every feed's spec, path and number of events (what the subscribe section
        and the feeds' list show of the feeds)."""
        return digest([(f.spec, f.path, len(f.sessions)) for f in self._published.feeds])

    def section_key(self, slug: str, depth: int) -> str:
        members = day_sessions(self._published)[slug]
        return digest(self._base, "day section", depth, slug, [self._sessions[s.id] for s in members])

    def subscribe_key(self, depth: int) -> str:
        return digest(self._base, "subscribe", depth, self._site.base_url, self.feeds)

    def section(self, slug: str, depth: int, make: Callable[[], bytes]) -> bytes:
        return self._kept(self.section_key(slug, depth), make)

    def subscribe(self, depth: int, make: Callable[[], bytes]) -> bytes:
        # Joined from its groups' parts once per depth and build, not kept whole.
        if depth not in self._subscribe:
            self._subscribe[depth] = make()
        return self._subscribe[depth]

    def group(self, shown: tuple[object, ...], depth: int, make: Callable[[], bytes]) -> bytes:
        return self._kept(digest(self._base, "feed group", depth, shown), make)

    def page_key(self, frame: PageFrame) -> str:
        sections = [self.section_key(slug, frame.depth) for slug in frame.days]
        return digest(self._base, "page", frame.fixed, sections, self.subscribe_key(frame.depth))

    def _kept(self, key: str, make: Callable[[], bytes]) -> bytes:
        return make() if self._output is None else self._output.part(key, make)


def page_parts(
    published: Published, site: Site, others: tuple[ConferenceLink, ...], parts: PageParts
) -> Iterator[tuple[str, str, Callable[[], bytes]]]:
    """(path, key, make) of the front page (its first day) and of each day's page."""
    views = [(urls.PAGE_FILE, View(), False)]
    views += [(urls.day_page(slug) + urls.PAGE_FILE, View(day=slug), True) for slug in day_page_slugs(published)]
    for path, view, day_page in views:
        frame = page_frame(published, site, view, others, day_page)
        yield path, parts.page_key(frame), partial(page_body, published, site, frame, parts)
