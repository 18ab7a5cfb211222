"""The schedule page's subscribe section: every catalogue feed with its ways in (webcal://,
the https link to copy, Google, Outlook, download, QR), grouped by kind.

The same on every page of a snapshot at one depth, so made once per snapshot, site and depth;
joined from one part per group (`_feed_group.html`), so a static build re-renders only the
groups whose feeds or event counts changed (page_parts.py, build_pages.py). A group of more
than `LISTED_FEEDS` feeds shows a link to its kind's own page instead (feed_index.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from markupsafe import Markup

from feeds import urls
from server.links import Site
from server.pages.calendar_links import outlook_subscribe_link
from server.pages.detail_html import feed_entries
from server.pages.page_parts import GROUP, Fragments, Made, join_marked
from server.pages.render import fragment
from server.snapshot.published import Feed, Published

MAIN_KINDS = ("all", "track", "room")  # in view; the rest of the catalogue is folded
FOLDED_LABELS = {
    "speaker": "Speakers",
    "level": "Levels",
    "kind": "Session types",
    "day": "Days",
}
KIND_LABELS = {"all": "Everything", "track": "Tracks", "room": "Rooms", **FOLDED_LABELS}
# Levels as attendees rank them; other names follow alphabetically, "any level" last.
LEVEL_RANK = {"beginner": 0, "intermediate": 1, "advanced": 2, "expert": 3}
LEVEL_LAST = {"any", "all", "all-levels", "any-level", "everyone"}
# A kind with more feeds than this is not listed on the schedule pages but on a page of its own,
# linked from its group. Each listed feed is about 1.2 KB of HTML (its links, link to copy and QR
# code): 3,333 speakers of a 10,000-session conference made 3.9 MB of every schedule page, a page
# people keep open on a phone all day. A hundred (about 120 KB) still reads as one list, and
# keeps every group of an ordinary conference (its tracks, rooms, tens of speakers) on the page.
LISTED_FEEDS = 100


@dataclass(frozen=True)
class Subscription:
    """One feed's ways in: webcal:// to subscribe, the https link to copy, Google, Outlook,
    download and QR."""

    kind: str
    slug: str
    name: str
    events: int
    url: str  # absolute
    path: str  # site-relative, for the download link
    webcal: str
    google: str
    outlook: str
    qr: str  # site-relative
    page: str  # site-relative: the page of its sessions ("" when it has none of its own)

    @property
    def anchor(self) -> str:
        return f"sub-{self.kind}" + (f"-{self.slug}" if self.slug else "")


def subscription(feed: Feed, site: Site, one_day: bool = False) -> Subscription:
    return Subscription(
        kind=feed.spec.kind.value,
        slug=feed.spec.slug,
        name=feed.spec.name,
        events=len(feed.sessions),
        url=site.url(feed.path),
        path=feed.path,
        webcal=site.webcal(feed.path),
        google=site.google(feed.path),
        outlook=outlook_subscribe_link(site.url(feed.path), feed.spec.title),
        qr=urls.feed_qr(feed.path),
        page="" if one_day and feed.spec.kind.value == "day" else sessions_page(feed.spec.kind.value, feed.spec.slug),
    )


def sessions_page(kind: str, slug: str) -> str:
    """Where a feed's sessions are shown: the schedule for everything, a track's or room's
    page, a speaker's page, a day's page; none for a level or session type (the schedule's
    filter is a query string a static host ignores)."""
    pages = {"all": "", "track": f"tracks/{slug}/", "room": f"rooms/{slug}/", "speaker": f"speakers/{slug}/"}
    if kind == "day":
        return urls.day_page(slug)
    return pages.get(kind, "-")


def level_key(slug_and_name: tuple[str, str]) -> tuple[int, int, str]:
    slug, name = slug_and_name
    if slug in LEVEL_LAST:
        return (2, 0, name)
    rank = LEVEL_RANK.get(slug)
    return (0, rank, name) if rank is not None else (1, 0, name)


def indexed_kinds(published: Published) -> frozenset[str]:
    """The kinds with more than `LISTED_FEEDS` feeds: each has a page of its own (feed_index.py)
    that its group on the schedule pages links to instead of listing them."""

    def count() -> frozenset[str]:
        counts = Counter(feed.spec.kind.value for feed in published.feeds)
        return frozenset(kind for kind, count in counts.items() if count > LISTED_FEEDS)

    # Memoized: the route asks on every request.
    return published.memo(("indexed kinds",), count)


def subscribe_groups(published: Published, site: Site) -> list[dict[str, Any]]:
    """The catalogue's feeds in the subscribe section's groups: the main kinds first, then the
    folded ones; each group's `sources` are its feeds, `feeds` their ways in (`Subscription`),
    and `shown` everything it shows on the schedule pages (its kind, label and feeds; or, for a
    kind with a page of its own, `index`, the number of feeds and the link to that page). A kind
    with a page of its own lists no `feeds` here: its thousands of speakers' ways in would be
    most of a rebuild's subscribe section, for one link (feed_index.py lists them)."""

    def build() -> list[dict[str, Any]]:
        main: list[dict[str, Any]] = []
        folded: list[dict[str, Any]] = []
        for feed in published.feeds:
            kind = feed.spec.kind.value
            target = main if kind in MAIN_KINDS else folded
            if not target or target[-1]["kind"] != kind:
                target.append(
                    {"kind": kind, "label": KIND_LABELS.get(kind, kind), "sources": [], "main": target is main}
                )
            target[-1]["sources"].append(feed)
        for group in folded:
            if group["kind"] == "level":
                group["sources"].sort(key=lambda f: level_key((f.spec.slug, f.spec.name)))
        groups = main + folded
        indexed = indexed_kinds(published)
        for group in groups:
            group["index"] = urls.feed_index(group["kind"]) if group["kind"] in indexed else ""
            if group["index"]:
                count = len(group["sources"])
                group["link"] = f"All {count:,} {group['label'].lower()}' feeds"
                group["feeds"] = ()
                group["shown"] = (group["kind"], group["label"], count, group["index"], group["link"])
            else:
                one_day = group["kind"] == "day" and len(group["sources"]) == 1
                group["feeds"] = tuple(subscription(feed, site, one_day) for feed in group["sources"])
                # The schedule pages show no feed's number of events: a session moved from one
                # day to another changes those days' pages, not every page of the conference.
                group["shown"] = (group["kind"], group["label"], tuple(replace(f, events=0) for f in group["feeds"]))
        return groups

    return published.memo(("subscribe groups", site.base_url), build)


def subscribe_section(published: Published, site: Site, depth: int, parts: Fragments | None = None) -> bytes:
    """Every catalogue feed with its ways in (_subscribe.html), joined from one part per group
    (_feed_group.html) so a build re-renders only the groups whose feeds or counts changed: the
    same on every page of a snapshot at one depth, so made once per snapshot, site and depth
    rather than once per page (a static build of a long conference writes a page per day)."""

    def build() -> bytes:
        groups = subscribe_groups(published, site)
        made = parts or Made()
        context = {
            "main_groups": [GROUP for group in groups if group["main"]],
            "folded_groups": [GROUP for group in groups if not group["main"]],
        }
        bodies = [made.group(group["shown"], depth, partial(_group_body, group, depth)) for group in groups]
        return join_marked(fragment("_subscribe.html", depth, context), GROUP, bodies)

    return build() if parts is not None else published.memo(("subscribe", site.base_url, depth), build)


def _group_body(group: dict[str, Any], depth: int) -> bytes:
    return fragment("_feed_group.html", depth, group_context(group, depth)).encode("utf-8")


def group_context(group: dict[str, Any], depth: int) -> dict[str, Any]:
    """What `_feed_group.html` reads: the group, and its feeds' entries at `depth`."""
    entries = feed_entries(group["feeds"], "../" * depth, bool(group.get("counts")))
    return {"group": group, "entries": Markup(entries)}
