"""The markup of the pages a build makes by the thousand, made in Python: the session, speaker,
track and room pages (13,000 pages at 10,000 sessions) and the timetable's cards (each session's
on two pages' depths), where a template's per-expression cost (a context lookup, an attribute
lookup and an escape call each) was most of a build's time.

The frame around the pages stays the templates' own: `_shell.html` (detail.html, base.html) is
rendered once per conference and depth with markers where the title, the description and the
main part go, and cut at them (`shell`); a page is those pieces joined with its own escaped
text. Every piece of schedule text goes through `esc`, the templates' autoescape, so the bytes
are the same as a template would give; the page tests pin them."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from markupsafe import Markup

from feeds.model import Conference, Session, Speaker
from feeds.web_links import web_link
from server.pages.calendar_links import FeedLinks
from server.pages.cards import Card
from server.pages.render import link, page_text

if TYPE_CHECKING:  # subscribe.py imports page_parts.py, which imports this
    from server.pages.subscribe import Subscription

# Where `shell` cuts its frame: random per process, so no schedule text can hold one.
_MARK = f"\x00{secrets.token_hex(16)}\x00"


def esc(text: str) -> str:
    """`text` as HTML text or attribute value: what the templates' autoescape (markupsafe's
    `escape`) writes, as a plain string (a `Markup` would escape whatever is added to it)."""
    # Most of a page's texts (names, times, links) hold none of the five: asking is cheaper
    # than five replacements that find nothing, and a build escapes millions of texts.
    if "&" in text or "<" in text or ">" in text or "'" in text or '"' in text:
        return (
            text.replace("&", "&amp;")
            .replace(">", "&gt;")
            .replace("<", "&lt;")
            .replace("'", "&#39;")
            .replace('"', "&#34;")
        )
    return text


@dataclass(frozen=True)
class Shell:
    """A detail page around its description, title and main part, in that order, encoded (a
    page joined as text is widened to its widest character, an emoji's four bytes, throughout)."""

    head: bytes
    between: bytes  # description -> title
    before_main: bytes
    tail: bytes

    def page(self, title: str, description: str, main: str) -> bytes:
        """The page's bytes; `title` (before the conference's name) and `description` are plain
        text, `main` markup."""
        return self.before(title, description) + main.encode() + self.tail

    def before(self, title: str, description: str) -> bytes:
        """The page's bytes before its main part (`page`)."""
        return b"".join((self.head, esc(description).encode(), self.between, esc(title).encode(), self.before_main))


@lru_cache(maxsize=64)
def shell(conference: Conference, depth: int, layout: str = "detail.html") -> Shell:
    """`_shell.html` of `conference` at `depth` in `layout` (detail.html, directory.html), cut
    where its description, title and main go."""
    marks = {name: Markup(f"{_MARK}{name}{_MARK}") for name in ("description", "title", "main")}
    text = page_text("_shell.html", depth, {"conference": conference, "layout": layout, **marks})
    pieces = text.split(_MARK)
    if pieces[1::2] != ["description", "title", "main"]:
        raise ValueError("_shell.html lost a marker")
    return Shell(*(piece.encode() for piece in pieces[::2]))


def time_span(card: Card, timezone: str, first: str = "") -> str:
    """`<time>` start – `<time>` end and the zone: `first` (escaped) goes before the start."""
    return (
        f'<time datetime="{card.start_local}">{first}{card.start_label}</time>–'
        f'<time datetime="{card.end_local}">{card.end_label}</time> '
        f'<abbr title="{esc(timezone)}">{esc(card.zone_label)}</abbr>'
    )


def session_main(
    conference: Conference,
    card: Card,
    date: str,
    paragraphs: Sequence[str],
    offered: tuple[str | None, str | None],
    speaker_paths: Iterable[tuple[Speaker, str]],
) -> str:
    """The session page's article."""
    s: Session = card.session
    up = "../../"
    title = esc(s.title)
    zone = esc(conference.timezone)
    out = [
        f'<article class="session-detail{" cancelled" if s.cancelled else ""}" data-session-id="{esc(s.id)}"'
        f' data-start="{card.start_utc}" data-end="{card.end_utc}">\n',
        f'<h1><s>{title}</s> <span class="badge">Cancelled</span></h1>\n' if s.cancelled else f"<h1>{title}</h1>\n",
        '<dl class="facts-list">\n<dt>When</dt>\n',
        f'<dd class="time">{esc(date)}, {time_span(card, conference.timezone)} ({zone})'
        '<span class="local-time" hidden></span></dd>\n',
    ]
    if s.room:
        out.append(
            f'<dt>Room</dt><dd class="room"><a href="{esc(up + "rooms/" + s.room.slug + "/")}">{esc(s.room.name)}</a></dd>'
        )
    if s.track:
        out.append(
            f'<dt>Track</dt><dd class="track"><a href="{esc(up + "tracks/" + s.track.slug + "/")}">{esc(s.track.name)}</a></dd>'
        )
    if s.level:
        out.append(f'<dt>Level</dt><dd class="level">{esc(s.level.name)}</dd>')
    out.append(f'<dt>Type</dt><dd class="kind">{esc(card.kind)}</dd>\n')
    if s.speakers:
        out.append(f'<dt>{"Speaker" if len(s.speakers) == 1 else "Speakers"}</dt>\n<dd><ul class="speaker-links">\n')
        for person, path in speaker_paths:
            affiliation = f' <span class="affiliation">({esc(person.affiliation)})</span>' if person.affiliation else ""
            out.append(f'<li><a href="{esc(link(up, path))}">{esc(person.name)}</a>{affiliation}</li>\n')
        out.append("</ul></dd>\n")
    out.append(
        '</dl>\n<p class="actions">\n'
        '<button type="button" class="pick js-only" data-action="pick" aria-pressed="false">'
        f'Pick<span class="vh"> {title}</span></button>\n'
        f'<a class="ics" href="{esc(link(up, card.ics))}" download>Download .ics</a>\n'
    )
    google, outlook = offered
    if google and outlook:  # both or neither
        out.append(
            f'<a class="google" href="{esc(google)}">Google Calendar</a>\n<a class="outlook" href="{esc(outlook)}">Outlook</a>\n'
        )
    out.append("</p>\n")
    if paragraphs:
        out.append(
            '<section class="abstract" aria-labelledby="abstract-title">\n<h2 id="abstract-title">Abstract</h2>\n'
        )
        out += [f"<p>{esc(paragraph)}</p>\n" for paragraph in paragraphs]
        out.append("</section>\n")
    site_link = web_link(s.url)
    if site_link:
        out.append(f'<p><a href="{esc(site_link)}" rel="noopener">This session on the conference\'s site</a></p>')
    extra_links = [(one, url) for one in s.links if (url := web_link(one.url)) is not None]
    if s.subtitle or s.language or s.do_not_record or extra_links:
        out.append(
            '<section class="source-extras" aria-labelledby="extras-title">\n<h2 id="extras-title">From the source</h2>\n'
        )
        if s.subtitle:
            out.append(f'<p class="subtitle">{esc(s.subtitle)}</p>')
        if s.language:
            out.append(f'<p class="language">Language: {esc(s.language)}</p>')
        if s.do_not_record:
            out.append('<p class="do-not-record">Not recorded, at the speakers\' request.</p>')
        if extra_links:
            out.append('<ul class="source-links">\n')
            for one, url in extra_links:
                kind = esc(one.kind)
                out.append(
                    f'<li data-kind="{kind}"><a href="{esc(url)}" rel="noopener">'
                    f'{esc(one.title or one.url)}</a> <span class="link-kind">({kind})</span></li>\n'
                )
            out.append("</ul>\n")
        out.append("</section>\n")
    out.append("</article>\n")
    return "".join(out)


def speaker_main(conference: Conference, person: Speaker, cards: Sequence[Card], feed: FeedLinks | None) -> str:
    """The speaker page's article; `feed`: the speaker's feed's links, when there is one."""
    up = "../../"
    name = esc(person.name)
    out = [f'<article class="speaker-detail">\n<h1>{name}</h1>\n']
    if person.affiliation:
        out.append(f'<p class="affiliation-line">{esc(person.affiliation)}</p>')
    if person.bio:
        out.append(f'<p class="bio">{esc(person.bio)}</p>')
    out.append(f'<h2>{"Session" if len(cards) == 1 else "Sessions"}</h2>\n<ul class="speaker-sessions">\n')
    # Each start with its own date (its ISO 8601 text begins with it), not its conference day's:
    # a talk after midnight belongs to the day before when the day changes later.
    for card in cards:
        room = card.session.room
        out.append(
            f'<li data-session-id="{esc(card.id)}" data-start="{card.start_utc}" data-end="{card.end_utc}">'
            f'<a href="{esc(link(up, card.page))}">{esc(card.session.title)}</a>\n'
            f'<span class="time">{time_span(card, conference.timezone, card.start_local[:10] + " ")}'
            f'<span class="local-time" hidden></span></span>{" · " + esc(room.name) if room else ""}</li>\n'
        )
    out.append("</ul>\n")
    if feed:
        out.append(
            f"<h2>{name}'s feed</h2>\n"
            f'<p class="links"><a class="subscribe" href="{esc(feed.webcal)}" data-speaker-feed>Subscribe to {name}\'s sessions</a>\n'
            f'<a class="google" href="{esc(feed.google)}">Google Calendar</a>\n'
            f'<a class="outlook" href="{esc(feed.outlook)}">Outlook</a>\n'
            f'<a class="download" href="{esc(link(up, feed.path))}" download>Download .ics</a></p>\n'
            f'<p><input class="copy" type="text" readonly value="{esc(feed.url)}" aria-label="Link to the feed of {name}"></p>\n'
        )
    out.append("</article>\n")
    return "".join(out)


def facet_head(title: str, name: str, index: tuple[str, str], feed: FeedLinks) -> str:
    """A track's or room's page's article before its days: `index` is the page of every track
    or room and its label, `feed` the feed's links."""
    up = _FACET_UP
    return (
        f'<article class="facet-detail">\n<h1>{esc(title)}</h1>\n'
        f'<p><a href="{esc(link(up, index[0]))}">{esc(index[1])}</a></p>\n'
        f'<p class="links"><a class="subscribe" href="{esc(feed.webcal)}">Subscribe to {esc(name)}</a>\n'
        f'<a class="google" href="{esc(feed.google)}">Google Calendar</a>\n'
        f'<a class="outlook" href="{esc(feed.outlook)}">Outlook</a>\n'
        f'<a class="download" href="{esc(link(up, feed.path))}" download>Download .ics</a></p>\n'
    )


def facet_day(day: str, first: bool) -> str:
    """What opens a day's list on a track's or room's page: the day before it ends here, unless
    it is the first."""
    return ("" if first else "</ul>\n") + f'<h2>{esc(day)}</h2>\n<ul class="listing">\n'


def facet_item(card: Card, kind: str) -> str:
    """A session in a day's list on a track's or room's page (`kind`): a room's page names no
    room, a track's no track."""
    s, up = card.session, _FACET_UP
    title_text = esc(s.title)
    room = (
        f' · <a href="{esc(up + "rooms/" + s.room.slug + "/")}">{esc(s.room.name)}</a>'
        if kind != "room" and s.room
        else ""
    )
    track = (
        f' · <a href="{esc(up + "tracks/" + s.track.slug + "/")}">{esc(s.track.name)}</a>'
        if kind != "track" and s.track
        else ""
    )
    speakers = " · " + ", ".join(esc(p.name) for p in s.speakers) if s.speakers else ""
    return (
        f'<li data-session-id="{esc(s.id)}" data-start="{card.start_utc}" data-end="{card.end_utc}">'
        f'<span class="time"><time datetime="{card.start_local}">{card.start_label}</time>–'
        f'<time datetime="{card.end_local}">{card.end_label}</time></span>\n'
        f'<a href="{esc(link(up, card.page))}">'
        f"{f'<s>{title_text}</s> (cancelled)' if s.cancelled else title_text}</a>{room}{track}{speakers}</li>\n"
    )


def facet_end(days: bool) -> str:
    """A track's or room's page's article after its days (`days`: whether it lists any)."""
    return ("</ul>\n" if days else "") + "</article>\n"


# Where a track's or room's page is: tracks/{slug}/.
_FACET_UP = "../../"


def card_text(card: Card, up: str, timezone: str, hidden: Collection[str]) -> tuple[str, str, str]:
    """A timetable card's markup (page_parts.CardText): before the "short" class, between it and
    the grid style's value, after that."""
    s = card.session
    title = esc(s.title)
    track, level = s.track, s.level
    speakers = ""
    if s.speakers:
        names = ", ".join(
            f'{esc(p.name)} <span class="affiliation">({esc(p.affiliation)})</span>' if p.affiliation else esc(p.name)
            for p in s.speakers
        )
        speakers = f'<p class="speakers">{names}</p>\n'
    room = f'<span class="room">{esc(s.room.name)}</span> ' if s.room else ""
    before = '<article class="card cancelled' if s.cancelled else '<article class="card'
    between = (
        f'" id="{esc(card.anchor)}" data-session-id="{esc(s.id)}" data-day="{card.day}" data-start="{card.start_utc}"'
        f' data-end="{card.end_utc}" data-track="{esc(track.slug) if track else ""}" data-room="{esc(card.room_slug)}"'
        f' data-level="{esc(level.slug) if level else ""}" data-kind="{esc(card.kind_slug)}"'
        f' data-speaker="{esc(card.speaker_slugs)}" style="{f"--hue: {card.hue}; " if track else ""}'
    )
    heading = f'<s>{title}</s> <span class="badge">Cancelled</span>' if s.cancelled else title
    facts = room + f'<span class="kind">{esc(card.kind)}</span>'
    if track:
        facts += f' <span class="track">{esc(track.name)}</span>'
    if level:
        facts += f' <span class="level">Level: {esc(level.name)}</span>'
    after = (
        f'"{" hidden" if s.id in hidden else ""}>\n'
        f'<h4 class="title"><a href="{esc(link(up, card.page))}" data-session-link>{heading}</a></h4>\n'
        f'<p class="time">{time_span(card, timezone)}<span class="local-time" hidden></span></p>\n'
        f'{speakers}<p class="facts">{facts}</p>\n<p class="actions">\n'
        f'<button type="button" class="pick js-only" data-action="pick" aria-pressed="false" aria-label="Pick {title}">'
        "Pick</button>\n"
        f'<a class="ics" href="{esc(link(up, card.ics))}" download aria-label=".ics file of {title}">.ics</a>\n'
        "</p>\n</article>\n"
    )
    return before, between, after


@dataclass(frozen=True)
class DirectoryEntry:
    """A speaker as the speakers' directory shows them: `bio` shortened, `sessions` as (title,
    site-relative page) in time order."""

    person: Speaker
    path: str
    bio: str
    sessions: tuple[tuple[str, str], ...]

    @property
    def shown(self) -> tuple[object, ...]:
        """Everything the entry shows, as plain values (a build keys the directory on it)."""
        p = self.person
        return (p.slug, p.name, p.role, p.affiliation, self.path, self.bio, self.sessions)


def speakers_article(title: str) -> tuple[str, str]:
    """The speakers' directory's article before its entries' markup (`directory_entry`) and after."""
    return f'<article class="speaker-directory">\n<h1>{esc(title)}</h1>\n', "</article>\n"


def directory_entry(entry: DirectoryEntry) -> str:
    """A speaker's entry in the speakers' directory, one level down."""
    up = "../"
    p = entry.person
    slug = esc(p.slug)
    out = [
        f'<section class="speaker-entry" aria-labelledby="speaker-{slug}">\n'
        f'<h2 id="speaker-{slug}"><a href="{esc(link(up, entry.path))}">{esc(p.name)}</a></h2>\n'
    ]
    if p.role or p.affiliation:
        joint = ", " if p.role and p.affiliation else ""
        out.append(f'<p class="affiliation-line">{esc(p.role or "")}{joint}{esc(p.affiliation or "")}</p>')
    if entry.bio:
        out.append(f'<p class="bio">{esc(entry.bio)}</p>')
    out.append('<ul class="speaker-sessions">\n')
    out += [f'<li><a href="{esc(link(up, path))}">{esc(session)}</a></li>\n' for session, path in entry.sessions]
    out.append("</ul>\n</section>\n")
    return "".join(out)


def feed_entries(feeds: Iterable[Subscription], up: str, counts: bool) -> str:
    """A group's feeds in the subscribe section or on its kind's page, each with its ways in;
    `counts`: with each feed's number of events."""
    return "".join(feed_entry(feed, up, counts) for feed in feeds)


def feed_entry(feed: Subscription, up: str, counts: bool) -> str:
    """One feed of `feed_entries`."""
    name = esc(feed.name)
    if feed.page != "-":
        title = f'<a class="name" href="{esc(link(up, feed.page))}">{name}</a>'
    else:
        title = f'<span class="name">{name}</span>'
    count = ""
    if counts:
        count = f'<span class="count">{feed.events} {"event" if feed.events == 1 else "events"}</span>'
    return (
        f'<li class="feed" id="{esc(feed.anchor)}" data-name="{name}">\n{title}'
        f'<a class="subscribe" href="{esc(feed.webcal)}">Subscribe<span class="vh"> to {name}</span></a>\n'
        f'{count}<details class="more">\n'
        f'<summary>More<span class="vh"> ways to subscribe to {name}</span></summary>\n'
        '<noscript class="unfold">\n'
        f'<p class="links"><a class="google" href="{esc(feed.google)}">Google Calendar</a>\n'
        f'<a class="outlook" href="{esc(feed.outlook)}">Outlook</a>\n'
        f'<a class="download" href="{esc(link(up, feed.path))}" download>Download .ics</a></p>\n'
        f'<p><input class="copy" type="text" readonly value="{esc(feed.url)}" aria-label="Link to the feed {name}"></p>\n'
        f'<img src="{esc(link(up, feed.qr))}" alt="QR code of the feed link for {name}" width="180" height="180"'
        ' loading="lazy">\n</noscript>\n</details>\n</li>\n'
    )
