"""The schedule pages of a static build: each keyed on what it shows, each joined
from parts a rebuild mostly reuses.

A page is its frame (filters, day tabs, counts), its days' sections and the subscribe section
(page_parts.py). Its key is the frame's text with the keys of its parts: a day's section is
keyed on that day's sessions, the subscribe section on the feeds and how many events each
has. So a session moved within one day changes that day's page and the all-days page (and the
front page when it is the first day), and a rebuild joins those from the sections it kept
(`Output.part`), making only the changed day's section. That section is laid out again (a room's
number of sessions orders the columns, so one move may shift every card) but joined from its
cards' markup as the last build made it, kept per day and depth by each session's key: only the
moved session's card is rendered. Also here: the key of a kind's own page of feeds (the kind's
feeds only) and `api/feeds` joined from a kept part per kind.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Container, Iterator, Sequence
from functools import cached_property, partial
from itertools import accumulate, chain, groupby, pairwise, repeat
from operator import add, sub
from typing import Any, cast

from feeds import compact_json, urls
from feeds.catalogue import FeedKind, FeedSpec
from feeds.model import Session
from feeds.web_links import web_link
from server.links import OtherConferences, Site
from server.pages.cards import Card
from server.pages.detail_pages import speakers
from server.pages.feed_index import feed_index_entry, feed_index_frame, feed_index_pieces
from server.pages.index_pages import (
    Opens,
    directory_entries,
    directory_entry_bytes,
    directory_place,
    facet_ends,
    facet_page_path,
    facet_representation,
    facet_row,
    facet_rows,
    index_files,
    speakers_index_ends,
    speakers_index_representation,
)
from server.pages.page import (
    day_page_slugs,
    frame_inputs,
    frame_of,
    page_context,
    page_depth,
    page_segments,
    search_representation,
)
from server.pages.page_parts import CardText, CardTexts, day_sessions
from server.pages.search import day_rows, index_body
from server.pages.view import ALL_DAYS, View
from server.site.build_bodies import Body, Joined, Segment, Span, segment
from server.site.build_keys import body_digest, digest, joined_digest, listing
from server.site.build_output import Output
from server.site.build_texts import ChunkTexts
from server.snapshot.api import FEEDS_HEAD, FEEDS_TAIL, feed_entries_json
from server.snapshot.conditional import Representation
from server.snapshot.published import Feed, Published

_SPEAKERS_INDEX = urls.SPEAKERS + urls.PAGE_FILE
# The end of `search.json` after its rows (search.index_body: the rows are its last field).
_ROWS_END = b"]}"
# Made rows are written in segments of about this size: one write each, and a first build makes
# every row of documents of tens of megabytes.
_MADE_BYTES = 1 << 20
# What a row of a track's or room's page opens, in its name (a session's key is hexadecimal).
_OPENS: dict[Opens, str] = {"": "", "first": "^", "next": "|"}


def spec_fields(spec: FeedSpec) -> tuple[str, str, str, str]:
    """A feed's spec for a key: its fields, its kind by value (a dataclass's or an enum's repr is
    a Python call, and keys list every feed of a conference: 16,809 at 50,000 sessions)."""
    return (spec.kind.value, spec.slug, spec.name, spec.title)


def _feed_text(feed: Feed) -> str:
    """A feed's spec and path as one line of a key: its kind, slug and path have no tab or line
    break (slugs), its name and title may hold anything, so each is given with its length."""
    kind, slug, name, title = spec_fields(feed.spec)
    return f"{kind}\t{slug}\t{feed.path}\t{len(name)}:{name}{len(title)}:{title}"


def _text_key(lines: list[str]) -> str:
    """A key of `lines`, none of which holds a line break outside a length-given field."""
    return hashlib.blake2b("\n".join(lines).encode(), digest_size=16).hexdigest()


class PageParts:
    """A build's `page_parts.Fragments`: every part keyed on its inputs and kept by `output`
    (or made each time without one)."""

    def __init__(
        self,
        output: Output | None,
        base: str,
        published: Published,
        site: Site,
        sessions: dict[str, str],
        speakers: list[str] | None = None,
        at: str = "",
    ) -> None:
        self._output, self._base, self._published, self._site = output, base, published, site
        self._at = at  # the conference's directory in the output
        self._sessions = sessions  # session id -> digest of the session
        self.speakers = speakers  # each speaker's page's key, in the speakers' order, if known
        self._subscribe: dict[int, bytes] = {}
        self._cards: dict[tuple[str, int], ChunkTexts[Card]] = {}  # the sections being made

    @cached_property
    def _shown(self) -> list[str]:
        """What the pages and the feeds' list show of each feed but its number of events (spec
        and path), in the catalogue's order, as text a key is made from: made once for the
        16,809 feeds of a 50,000-session conference, where a repr of each was a pass of its own."""
        return [_feed_text(feed) for feed in self._published.feeds]

    @cached_property
    def _runs(self) -> list[tuple[str, list[Feed], str]]:
        """The feeds in runs of one kind, in the catalogue's order, each with a digest of what the
        pages and the feeds' list show of its feeds: spec, path and number of events."""
        runs = []
        shown = zip(self._published.feeds, self._shown, strict=True)
        for kind, group in groupby(shown, key=lambda pair: pair[0].spec.kind):
            pairs = list(group)
            counted = [f"{text}\t{len(feed.members)}" for feed, text in pairs]
            runs.append((kind.value, [feed for feed, _ in pairs], _text_key(counted)))
        return runs

    @cached_property
    def feeds(self) -> str:
        """A digest of every feed's spec, path and number of events (what the subscribe section
        and the feeds' list show of the feeds)."""
        return digest([shown for _, _, shown in self._runs])

    def feed_index_key(self, kind: str) -> str:
        """The key of `subscribe/{kind}/`: that kind's feeds (spec, path, number of events),
        all the page shows of the feeds; a session moved to another day changes two day
        feeds' counts, not the speakers' page."""
        return digest(self._base, "feed index", kind, [shown for of, _, shown in self._runs if of == kind])

    def feed_index_body(self, kind: str) -> Body:
        """`subscribe/{kind}/` as feed_index.py makes it, each feed's entry taken from the file
        the last build wrote when the feed shows what it showed then (`_Spliced`, each entry
        named by the feed's spec, path and number of events): a speaker swapped in a
        conference of 17,000 speakers makes two entries, not every one."""
        published, site = self._published, self._site
        if self._output is None:
            return feed_index_pieces(published, site, kind)
        before, feeds, after = feed_index_frame(published, site, kind)
        texts = {id(feed): text for feed, text in zip(published.feeds, self._shown, strict=True)}
        names = [_text_key([self._base, texts[id(feed)], str(len(feed.members))]) for feed in feeds]
        path = self._at + urls.feed_index(kind) + urls.PAGE_FILE
        spliced = _Spliced(self._output, self._feed_index_entries(kind), path, b"")
        return spliced.joined(before, names, lambda at: feed_index_entry(feeds[at], site), after)

    def hold_feed_index(self, kind: str) -> None:
        """Keep where the entries of `subscribe/{kind}/` are in its file for the next build,
        whether the page is made this time or not."""
        if self._output is not None:
            self._output.hold(self._feed_index_entries(kind))

    def _feed_index_entries(self, kind: str) -> str:
        return digest(self._base, "feed index entries", kind)

    def feeds_api(self) -> bytes:
        """`api/feeds`: the same bytes as `api.feeds_representation`, joined from a kept part
        per run of one kind (build_exports.py does so for `api/sessions`), so a move that
        changes two day feeds' counts makes the days' entries, not 3,333 speakers'."""
        site = self._site
        chunks = [
            self._kept(digest(self._base, "feeds entries", shown), partial(feed_entries_json, run, site))
            for _, run, shown in self._runs
        ]
        return FEEDS_HEAD + b",".join(chunks) + FEEDS_TAIL

    @cached_property
    def _days(self) -> dict[str, str]:
        """Each day's slug -> a digest of its sessions: every page at every depth keys on it."""
        return {
            slug: listing((), [self._sessions[s.id] for s in members])
            for slug, members in day_sessions(self._published).items()
        }

    @property
    def days(self) -> dict[str, str]:
        """Each day's slug -> a digest of its sessions (their keys, in the day's order)."""
        return self._days

    @property
    def base(self) -> str:
        return self._base

    def session_key(self, session_id: str) -> str:
        return self._sessions[session_id]

    def section_key(self, slug: str, depth: int) -> str:
        return digest(self._base, "day section", depth, slug, self._days[slug])

    @cached_property
    def _listed(self) -> str:
        """A digest of what the subscribe section shows of the feeds: spec and path, no number of
        events (a session moved to another day changes two day feeds' counts, not every page)."""
        return _text_key(self._shown)

    def subscribe_key(self, depth: int) -> str:
        return digest(self._base, "subscribe", depth, self._site.base_url, self._listed)

    def section(self, slug: str, depth: int, make: Callable[[], bytes]) -> bytes:
        key = self.section_key(slug, depth)
        return self._kept(key, partial(self._section, key, slug, depth, make))

    def section_piece(self, slug: str, depth: int, make: Callable[[], bytes]) -> Span | Segment:
        """`section`, as a segment of the page written `Joined`: a `Span` of where a file kept it."""
        if self._output is None:
            return segment([make()])
        key = self.section_key(slug, depth)
        return self._output.piece(key, partial(self._section, key, slug, depth, make))

    def _section(self, key: str, slug: str, depth: int, make: Callable[[], bytes]) -> bytes:
        """The section `key` made, its cards' markup kept where it holds them (`cards`)."""
        if self._output is None:
            return make()
        keeper = self._cards[slug, depth] = ChunkTexts(self._output, self._cards_key(slug, depth), self._card_name)
        try:
            body = make()
        finally:
            del self._cards[slug, depth]
        keeper.keep(key, body)
        return body

    def _card_name(self, card: Card) -> str:
        return self._sessions[card.id]

    def cards(self, slug: str, depth: int, cards: Sequence[Card], make: CardTexts) -> list[CardText]:
        """The cards' markup: the last build's for every session it knew the same (by the
        session's key, whatever its place in the grid now), `make` for the others. Kept per day
        and depth, named by the day, not by its sessions (`page_key` holds it for the next
        build), as where the day's section holds each card's pieces: a moved session's day
        renders that card alone, though the move may shift every column (a room's number of
        sessions orders the columns, cards.room_order)."""
        if self._output is None:
            return make(cards)
        # Asked for by the day's section while it is made (`_section`), whose keeper reads them.
        return cast(list[CardText], self._cards[slug, depth].pieces(cards, make))

    def _cards_key(self, slug: str, depth: int) -> str:
        return digest(self._base, "day cards", depth, slug)

    def subscribe(self, depth: int, make: Callable[[], bytes]) -> bytes:
        # Joined from its groups' parts once per depth and build, not kept whole.
        if depth not in self._subscribe:
            self._subscribe[depth] = make()
        return self._subscribe[depth]

    def group(self, shown: tuple[object, ...], depth: int, make: Callable[[], bytes]) -> bytes:
        return self._kept(digest(self._base, "feed group", depth, shown), make)

    def page_key(self, context: dict[str, Any], depth: int) -> str:
        """The key of the schedule page `page_context` gave `context` for: its frame named by
        what the frame is rendered from (`frame_inputs`), not rendered to be keyed, and its
        sections' and subscribe section's keys."""
        days = context["shown_days"]
        sections = [self.section_key(slug, depth) for slug in days]
        if self._output is not None and not context["hidden"]:
            for slug in days:  # kept whether or not a section is made this time
                self._output.hold(self._cards_key(slug, depth))
        return digest(self._base, "page", depth, frame_inputs(context), sections, self.subscribe_key(depth))

    def search_body(self) -> Body:
        """`search.json` as `search_representation` makes it: its head, each day's rows (joined
        with commas) and its tail, each day's rows a part keyed on the day's sessions, so a
        rebuild makes the changed days' rows alone and copies the others from their parts."""
        published = self._published
        if self._output is None:
            return search_representation(published).body
        head = index_body(published.conference, [])[: -len(_ROWS_END)]
        return Joined.of(chain([head], self._search_days(self._output), [_ROWS_END]))

    def _search_days(self, output: Output) -> Iterator[bytes | Span | Segment]:
        for at, (slug, sessions) in enumerate(day_sessions(self._published).items()):
            if at:
                yield b","
            key = digest(self._base, "search day", slug, self._days[slug])
            yield output.piece(key, partial(_search_rows, slug, sessions))

    def hold_named(self) -> None:
        """Keep the part named by the conference, not by what it holds, for the next build,
        whether the file joined from it is made this time or not: where the entries of the
        speakers' directory are in its file."""
        if self._output is not None:
            self._output.hold(self._speakers_key)

    def speakers_index_key(self) -> str:
        base, url = self._base, self._site.base_url
        if self.speakers is not None:
            return listing((base, "speakers index", url), self.speakers)
        people = [entry.shown for entry in directory_entries(self._published)]
        return digest(base, "speakers index", url, people)

    def speakers_index_body(self) -> Body:
        """The speakers' directory as `speakers_index_representation` makes it, each speaker's
        entry taken from the file the last build wrote when their page's key (which names all
        the entry shows) is as it was then, so a rebuild renders the changed speakers' entries
        alone and copies the others in runs (`_Spliced`, in a part named by the conference:
        `hold_named`)."""
        published = self._published
        if self._output is None or self.speakers is None:
            return speakers_index_representation(published, self._site).body
        keyed = sorted(
            zip(speakers(published).values(), self.speakers, strict=True), key=lambda p: directory_place(p[0])
        )
        before, after = speakers_index_ends(published, len(keyed))
        spliced = _Spliced(self._output, self._speakers_key, self._at + _SPEAKERS_INDEX, b"")

        def entry_text(at: int) -> bytes:
            return directory_entry_bytes(keyed[at][0])

        return spliced.joined(before, [key for _, key in keyed], entry_text, after)

    @property
    def _speakers_key(self) -> str:
        return digest(self._base, "speaker entries")

    def facet_body(self, feed: Feed) -> Body:
        """A track's or room's page as `facet_representation` makes it, each session's row taken
        from the file the last build wrote when the session is as it was then and opens its day
        as it did (`_Spliced`, each row named by the session's key and what it opens: the key
        names the day, by the session's start in the conference `base` names); the rows are
        as many as the feed's sessions, a twelfth of a large conference, of which a move
        makes one or two."""
        published, kind = self._published, feed.spec.kind.value
        if self._output is None:
            return facet_representation(published, self._site, kind, feed).body
        before, after = facet_ends(published, self._site, kind, feed)
        rows = facet_rows(published, feed.sessions)
        keys = self._sessions
        names = [keys[session.id] + _OPENS[opens] for session, opens in rows]
        spliced = _Spliced(self._output, self._facet_key(feed), self._at + facet_page_path(feed), b"")

        def row(at: int) -> bytes:
            return facet_row(published, kind, *rows[at])

        return spliced.joined(before, names, row, after)

    def hold_facet(self, feed: Feed) -> None:
        """Keep where the rows of a track's or room's page are in its file for the next build,
        whether the page is made this time or not."""
        if self._output is not None:
            self._output.hold(self._facet_key(feed))

    def _facet_key(self, feed: Feed) -> str:
        return digest(self._base, "facet rows", feed.spec.kind.value, feed.spec.slug)

    def _kept(self, key: str, make: Callable[[], bytes]) -> bytes:
        return make() if self._output is None else self._output.part(key, make)


def page_parts(
    published: Published, site: Site, others: OtherConferences, parts: PageParts
) -> Iterator[tuple[str, str, Callable[[], Body]]]:
    """(path, key, make) of the front page (its first day) and of each day's page."""
    views = [(urls.PAGE_FILE, View(), False)]
    # The all-days page before the days': it joins each day's section (but the first) as a
    # piece, kept where it writes it, from which each day's own page then reads its section.
    slugs = sorted(day_page_slugs(published), key=lambda slug: slug != ALL_DAYS)
    views += [(urls.day_page(slug) + urls.PAGE_FILE, View(day=slug), True) for slug in slugs]
    for path, view, day_page in views:
        context, depth = page_context(published, site, view, others, day_page), page_depth(day_page)
        # Written a section at a time: the all-days page is tens of megabytes at 50,000 sessions.
        yield path, parts.page_key(context, depth), partial(_page_body, published, site, context, depth, parts)


def page_extras(
    published: Published, site: Site, parts: PageParts, remade: Container[tuple[FeedKind, str]] | None = None
) -> Iterator[tuple[str, str, Callable[[], Body]]]:
    """(path, key, make) of what the schedule pages fetch or link besides: `search.json`, keyed on
    each day's sessions (its rows are each session's card text and facets, by day), which the
    day sections key on already: a changed day's rows are made only when the key changed, not
    to key it (a session moved within its day then makes them, and leaves their bytes as they
    were, so the file's digest too).
    `remade`: the feeds made again, when every other feed is taken as the last build made it
    (site_build.Kept): a track's or room's page shows its feed's sessions alone, so those of
    the other feeds are taken with them, not keyed on every session they list."""
    parts.hold_named()
    yield urls.SEARCH_INDEX, digest(parts.base, "search index", parts.days), parts.search_body
    # The track and room index pages: each keyed on the sessions it lists; a track's or room's
    # own page joined from its rows in the file the last build wrote.
    for path, shown, make, feed in index_files(published, site):
        body: Callable[[], Body] = partial(_body_of, make)
        if feed is not None:
            parts.hold_facet(feed)
            if remade is not None and (feed.spec.kind, feed.spec.slug) not in remade:
                continue
            body = partial(parts.facet_body, feed)
        sessions = feed.sessions if feed is not None else ()
        key = listing((parts.base, "index page", site.base_url, shown), [parts.session_key(s.id) for s in sessions])
        yield path, key, body
    # The speakers' directory: keyed on the speakers' pages' keys, which name all it shows (each
    # speaker's fields and sessions, in order), not on the repr of its entries (at 50,000
    # sessions that repr cost as much as making the page); joined from kept entries.
    yield _SPEAKERS_INDEX, parts.speakers_index_key(), parts.speakers_index_body
    # Unlike every other file, not what the server answers: it tells the pages they are static.
    yield urls.HOST, digest(parts.base, "host"), partial(_static_host, published)


def _page_body(published: Published, site: Site, context: dict[str, Any], depth: int, parts: PageParts) -> Joined:
    """The page (a build's views search nothing, so hide nothing), written a section at a time,
    each section after the first copied from where a file kept it (`Output.piece`)."""
    return Joined.of(page_segments(published, site, frame_of(context, depth), parts, parts.section_piece))


def _body_of(make: Callable[[], Representation]) -> bytes:
    return make().body


def _search_rows(day: str, sessions: tuple[Session, ...]) -> bytes:
    """A day's rows in `search.json`, joined with commas, as the whole document encodes them."""
    return b",".join(compact_json.dumps(row).encode("utf-8") for row in day_rows(day, sessions))


def _static_host(published: Published) -> bytes:
    """`host.json` of a static build: no server behind the pages; the conference's own site, if
    known, is where to go for the rest."""
    site = web_link(published.conference.source_url or "")
    return json.dumps({"static": True, "site": site}, separators=(",", ":")).encode()


class _Spliced:
    """A document that is a head, rows joined with `separator` and a tail, each row named by a
    key of all it shows, written `Joined` with most rows copied by the kernel from the file the
    last build wrote: a part named by the conference (`hold_named`) says where each row is in
    that file (the tail's and head's lengths; every row's name, length and digest), and the file
    is used only while it has the size and modification time recorded with it
    (`Output.source`) and the size those places add up to. The file's digest is made from its
    rows' (`Joined.sha`), so a row made again with the same bytes (a session moved within its
    day) leaves the file as it was. The rows are matched and cut into runs with whole-list
    passes: a large conference's speakers' directory has thousands of rows, and a track's page
    a twelfth of its sessions, of which a rebuild makes a few, and the rows kept are neither
    read nor digested again."""

    def __init__(self, output: Output, key: str, relative: str, separator: bytes) -> None:
        self._output, self._key, self._separator = output, key, separator
        self._path = ""  # the last file, when its rows may be copied
        self._index: dict[str, int] = {}  # each row of the last file by name: its place in it
        self._starts: list[int] = []
        self._lengths: list[int] = []
        self._shas: list[str] = []
        self._read(relative)

    def _read(self, relative: str) -> None:
        described = self._output.kept(self._key)
        path = self._output.source(relative) if described else None
        if not described or path is None:
            return
        try:
            ends, names, sizes, shas = described.decode("utf-8").split("\n")
            tail, _, head = ends.partition("\t")
            lengths = list(map(int, sizes.split()))
            offsets = list(accumulate(map(add, lengths, repeat(len(self._separator))), initial=int(head)))
            tail_length = int(tail)
        except ValueError:
            return  # not a part as `joined` writes it
        rows = names.split("\t") if names else []
        digests = shas.split()
        # No separator after the last row.
        rows_end = offsets[-1] - len(self._separator) if rows else offsets[-1]
        if not len(rows) == len(lengths) == len(digests) or rows_end + tail_length != os.stat(path).st_size:
            return  # not the file these places describe
        self._path, self._starts, self._lengths, self._shas = path, offsets[:-1], lengths, digests
        self._index = dict(zip(rows, range(len(rows)), strict=True))

    def joined(self, head: bytes, names: list[str], make: Callable[[int], bytes], tail: bytes) -> Joined:
        """The document's segments: `head`, the rows named `names` joined (`make(n)` makes the
        n-th when the last file has no row of its name), `tail`; the rows' places are kept for
        the next build."""
        found = list(map(self._index.get, names, repeat(-1)))  # each row's place in the last file, or -1
        made = {at: make(at) for at, place in enumerate(found) if place < 0}
        lengths = list(map(self._lengths.__getitem__, found)) if self._lengths else [0] * len(found)
        shas = list(map(self._shas.__getitem__, found)) if self._shas else [""] * len(found)
        for at, text in made.items():
            lengths[at], shas[at] = len(text), body_digest(text)
        # Names are digests: never a tab or a line break.
        described = "\n".join(
            (f"{len(tail)}\t{len(head)}", "\t".join(names), " ".join(map(str, lengths)), " ".join(shas))
        )
        self._output.renew(self._key, described.encode("utf-8"))
        sha = joined_digest([body_digest(head), *shas, body_digest(tail)])
        return Joined([segment([head]), *self._segments(found, made), segment([tail])], sha)

    def _segments(self, found: list[int], made: dict[int, bytes]) -> Iterator[Span | Segment]:
        """The rows joined with the separator: each run of rows that follow one another in the
        last file as one `Span` of it (separators included); the made rows between two runs,
        with the separators around them, in segments of about `_MADE_BYTES` (a first build makes
        every row). The file's digest is the rows' (`joined`), not the segments'."""
        if not found:
            return
        # A run ends where the next row is not the next of the last file, and at a made row.
        steps = list(map(sub, found[1:], found[:-1]))
        cuts = sorted({at + 1 for at, step in enumerate(steps) if step != 1} | set(made) | {at + 1 for at in made})
        bounds = [0, *(at for at in cuts if 0 < at < len(found)), len(found)]
        pieces: list[bytes] = []  # made bytes not yet in a segment
        size = 0
        for first, end in pairwise(bounds):
            if first:
                pieces.append(self._separator)
            if first in made:
                pieces.append(made[first])
                size += len(made[first])
                if size >= _MADE_BYTES:
                    yield Segment(pieces, "")
                    pieces, size = [], 0
                continue
            if pieces:
                yield Segment(pieces, "")
                pieces, size = [], 0
            low, high = found[first], found[end - 1]
            yield Span(self._path, self._starts[low], self._starts[high] + self._lengths[high], "")
        if pieces:
            yield Segment(pieces, "")
