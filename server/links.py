"""The links the API and the index page hand out: path, webcal:// subscription, Google Calendar.

The base URL is `--base-url` when configured, else the request's own scheme, host and root path;
a path served under a prefix keeps it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

from feeds import urls
from server.store.report import ConferenceSummary

GOOGLE_SUBSCRIBE = "https://calendar.google.com/calendar/r?cid="

# RFC 3986 section 2.3 unreserved characters: what `quote(value, safe="")` leaves as it is.
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")
# A byte (as the Latin-1 character of its value) -> its text in a URL.
_BYTE_TEXT = {byte: chr(byte) if byte in _UNRESERVED else f"%{byte:02X}" for byte in range(256)}


def quote_component(value: str) -> str:
    """`urllib.parse.quote(value, safe="")`, byte for byte (a lone surrogate raises the same
    UnicodeEncodeError), with one `str.translate` of the UTF-8 bytes (each as the Latin-1
    character of its value) where urllib makes a Python call per byte: a static build quotes
    a link or more for every session and feed."""
    return value.encode("utf-8").decode("latin-1").translate(_BYTE_TEXT)


@dataclass(frozen=True)
class Site:
    """Absolute links for one base URL, e.g. `https://cal.example.org` or `http://127.0.0.1:8080/conf`."""

    base_url: str

    @classmethod
    def of(cls, base_url: str) -> Site:
        return cls(base_url.rstrip("/"))

    @property
    def root_path(self) -> str:
        return urlsplit(self.base_url).path.rstrip("/")

    def path(self, relative: str) -> str:
        """The absolute path of a site-relative path: `feeds/all.ics` -> `/feeds/all.ics`."""
        return f"{self.root_path}/{relative}"

    def url(self, relative: str) -> str:
        return f"{self.base_url}/{relative}"

    def under(self, relative: str) -> Site:
        """The site of a part of this one, e.g. a conference's base `c/{slug}`."""
        return Site.of(self.url(relative))

    def webcal(self, relative: str) -> str:
        """The subscription form of the URL: http(s):// replaced with webcal:// (the de-facto scheme
        calendar apps register for subscribing, rather than importing once)."""
        url = self.url(relative)
        scheme, sep, rest = url.partition("://")
        if sep and scheme.lower() in ("http", "https"):
            return f"webcal://{rest}"
        return url

    def google(self, relative: str) -> str:
        return GOOGLE_SUBSCRIBE + quote_component(self.webcal(relative))


def conference_site(root: Site, slug: str, default: str | None) -> Site:
    """Where a conference's links point: the site root for the default conference (its pages
    and documents are then the same bytes at the root and under its base), else its base."""
    return root if slug == default else root.under(urls.conference_base(slug))


def calendar_base(base_url: str | None, slug: str, default: str | None) -> str | None:
    """The base a conference's calendars link to (VEVENT URL): its page under `--base-url`;
    None without one (events then link to the source)."""
    if base_url is None:
        return None
    return conference_site(Site.of(base_url), slug, default).base_url


class FirstIngested(Protocol):
    """What `served_calendar_base` needs of server.store.Store."""

    def default_conference(self) -> str | None: ...


def served_calendar_base(base_url: str | None, slug: str, default: str | None, store: FirstIngested) -> str | None:
    """`calendar_base` with the default conference a server takes: `default` (`--default`), else
    the one ingested first, asked of `store` only when there is a base URL. For the commands that
    must link as `confcal serve` does (export, push, the CalDAV sync jobs)."""
    if base_url is None:
        return None
    return calendar_base(base_url, slug, default or store.default_conference())


@dataclass(frozen=True)
class ConferenceLink:
    """Another conference served by the same server, as the page links to it."""

    name: str
    path: str  # absolute path of its page


@dataclass(frozen=True)
class ConferenceLinks:
    """Every conference's link under one root, in the store's order. A page's links to the others
    are these less its own (`others`): a server or build of many conferences makes each link once
    per list of conferences instead of once per page."""

    links: tuple[ConferenceLink, ...] = field(compare=False, repr=False)
    places: Mapping[str, int] = field(compare=False, repr=False)  # slug -> its link's index
    # A digest of the links' names and paths: equal lists are compared and hashed by it alone.
    key: str

    @classmethod
    def of(cls, summaries: Sequence[ConferenceSummary], root: Site) -> ConferenceLinks:
        links = tuple(ConferenceLink(c.conference.name, root.path(urls.conference_page(c.slug))) for c in summaries)
        key = hashlib.sha256(repr([(link.name, link.path) for link in links]).encode()).hexdigest()
        return cls(links, {c.slug: index for index, c in enumerate(summaries)}, key)

    def others(self, this: str | None) -> OtherConferences:
        return OtherConferences(self, this)


@dataclass(frozen=True)
class OtherConferences:
    """A page's links to every conference but `this` (none when it is the only one), in the
    store's order. Only names and slugs go in, so another conference's re-ingest leaves the page's
    bytes alone. Compared and hashed by the list's key and `this`, never link by link: a page's
    memo is keyed on them, and a server may hold a thousand conferences."""

    every: ConferenceLinks
    this: str | None

    @property
    def links(self) -> tuple[ConferenceLink, ...]:
        every = self.every.links
        if len(every) < 2:
            return ()
        at = None if self.this is None else self.every.places.get(self.this)
        return every if at is None else every[:at] + every[at + 1 :]

    def __iter__(self) -> Iterator[ConferenceLink]:
        return iter(self.links)

    def __len__(self) -> int:
        return len(self.links)


# A page that links to no other conference.
NO_OTHERS = OtherConferences(ConferenceLinks((), {}, ""), None)


def checked_base_url(value: str) -> str:
    """A --base-url value: an absolute http(s) URL without query or fragment, trailing `/` dropped.

    Raises ValueError (argparse turns it into a usage error) for anything else.
    """
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base URL must start with http:// or https:// and name a host: {value!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"base URL cannot have a query or fragment: {value!r}")
    return value.rstrip("/")
