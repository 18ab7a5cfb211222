"""What the schedule page is asked to show: the day and filters in its URL.

`?day=2026-04-07&track=compilers&level=beginner&q=jax` is the page's state, so reload and a shared
link show the same view. The facet filters are the feed filters (feeds.query), so "subscribe to
this view" is a feed URL with the same parameters and exactly the sessions shown. The search
words (`q`, server/pages/search.py) are applied by the server too, so they work without
JavaScript; "only my picks" is the browser's. Neither is part of a feed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from feeds.query import FeedQuery
from server.pages.search import MAX_QUERY

FACETS = ("track", "room", "level", "kind", "speaker")
ALL_DAYS = "all"
# The query parameters the page reads; it ignores any other (a campaign or click tag).
PARAMS = frozenset(("day", "q", *FACETS))


@dataclass(frozen=True)
class View:
    day: str = ""  # a day slug, ALL_DAYS, or "" for the default (the first day)
    track: tuple[str, ...] = ()
    room: tuple[str, ...] = ()
    level: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    speaker: tuple[str, ...] = ()
    q: str = ""  # the search words, as typed (cut to search.MAX_QUERY)

    @classmethod
    def from_params(cls, items: Iterable[tuple[str, str]]) -> View:
        """From the page's query string; names the page does not know are ignored (the
        script's own `picked`), so a hand-edited link still opens the schedule."""
        values: dict[str, list[str]] = {name: [] for name in PARAMS}
        for name, value in items:
            value = value.strip()
            if name in values and value and value not in values[name]:
                values[name].append(value)
        return cls(
            day=values["day"][0] if values["day"] else "",
            track=tuple(values["track"]),
            room=tuple(values["room"]),
            level=tuple(values["level"]),
            kind=tuple(values["kind"]),
            speaker=tuple(values["speaker"]),
            q=values["q"][0][:MAX_QUERY] if values["q"] else "",
        )

    def query(self) -> FeedQuery:
        return FeedQuery(
            track=self.track,
            room=self.room,
            level=self.level,
            kind=self.kind,
            speaker=self.speaker,
        )

    def filtered(self) -> bool:
        return any(getattr(self, name) for name in FACETS)

    def searched(self) -> bool:
        """Whether the view narrows the sessions: a facet or a search."""
        return self.filtered() or bool(self.q.strip())

    def first(self, name: str) -> str:
        values: tuple[str, ...] = getattr(self, name)
        return values[0] if values else ""

    def state_query(self) -> str:
        """The filters and search of this view, without its day: what a link to another day's
        page carries to show the same view there."""
        pairs = [(name, v) for name in FACETS for v in getattr(self, name)]
        if self.q.strip():
            pairs.append(("q", self.q.strip()))
        return urlencode(pairs)

    def feed_query(self, day: str | None) -> str:
        """The feed parameters of this view; `day` when the page shows one day of several."""
        pairs = [(name, v) for name in FACETS for v in getattr(self, name)]
        if day:
            pairs.insert(0, ("day", day))
        return urlencode(pairs)
