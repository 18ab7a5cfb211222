"""Every path confcal serves and links to, written once.

Two forms of each address live here side by side, so they cannot drift apart:

- *link paths*, relative to a conference's base (no leading slash: `feeds/all.ics`), which
  `links.Site` turns into absolute paths and URLs. The app's links, the API documents, the page,
  the QR codes, the static build's file names and the personal feeds all use them;
- *route templates* (Starlette patterns, leading slash), which `app.py`, `page.py`, `qr.py` and
  `picks_api.py` route, relative to the same base.

A conference's base is `c/{slug}/` under the site root, and the default conference is also
served at the root itself (docs/attendees.md, "The URL scheme"): every route template is mounted twice, once
at `/` and once under `/c/{conference}`. The paths are pure strings, so the module lives in
`feeds/`: the session link inside calendars and exports (`feeds.ical.event.session_url`) is the
card's anchor (`session_anchor`) on the conference's page, whose URL `links.calendar_base` gives.
"""

from __future__ import annotations

from feeds.catalogue import FeedKind, FeedSpec

# --- where a conference lives ----------------------------------------------------------------

CONFERENCE_MOUNT = "/c/{conference}"
CONFERENCES_API = "api/conferences"


def conference_base(slug: str) -> str:
    """The site-relative base of a conference's pages and feeds: `c/{slug}`."""
    return f"c/{slug}"


def conference_page(slug: str) -> str:
    """The link to a conference's schedule page (a directory, so it ends in `/`)."""
    return f"{conference_base(slug)}/"


# --- link paths, relative to a conference's base ---------------------------------------------

PAGE_FILE = "index.html"  # what the static build writes for PAGE
API_FEEDS = "api/feeds"
API_SESSIONS = "api/sessions"
API_PICKS = "api/picks"
STATIC = "static"
# The exports for conference apps, at the names frab and pretalx publish them (server/snapshot/exports.py).
SCHEDULE_XML = "schedule.xml"
SCHEDULE_JSON = "schedule.json"


def session_anchor(session_id: str) -> str:
    """The `id` of the session's card on the schedule page, which calendars link to (a fragment
    of the conference's page: `feeds.ical.event.session_url`)."""
    return f"session-{session_id}"


FEEDS = "feeds/"  # every catalogue feed, and nothing else
QR = "qr/"  # every catalogue feed's QR code, and nothing else


def feed(spec: FeedSpec) -> str:
    """A catalogue feed: `feeds/all.ics` or `feeds/{kind}/{slug}.ics`."""
    return feed_of(spec.kind, spec.slug)


def feed_of(kind: FeedKind, slug: str) -> str:
    """The path of the catalogue feed of this kind and slug, whether the catalogue has it or not."""
    if kind is FeedKind.ALL:
        return f"{FEEDS}all.ics"
    return f"{FEEDS}{kind.value}/{slug}.ics"


def feed_qr(feed_path: str) -> str:
    """The QR code of a feed path: `feeds/room/x.ics` -> `qr/room/x.svg`."""
    return QR + feed_path.removeprefix(FEEDS).removesuffix(".ics") + ".svg"


SESSIONS = "sessions/"  # every session's own files (download, page), and nothing else


def session_download(session_id: str) -> str:
    return f"{SESSIONS}{session_id}.ics"


def pick_feed(token: str) -> str:
    return f"p/{token}.ics"


def pick_qr(token: str) -> str:
    return f"p/{token}.svg"


def pick_set(token: str) -> str:
    return f"{API_PICKS}/{token}"


def pick_caldav(token: str) -> str:
    """The calendar a pick set is synced into (server.web.caldav_api)."""
    return f"{API_PICKS}/{token}/caldav"


def static(name: str) -> str:
    return f"{STATIC}/{name}"


# The schedule for conference apps (server/snapshot/exports.py), at the paths frab and pretalx use.
SCHEDULE_XML = "schedule.xml"
SCHEDULE_JSON = "schedule.json"


SERVICE_WORKER = "sw.js"  # at the conference's base, so its scope is the conference
# The pages' search index and what their script asks to learn whether a server is behind them
# (server/pages/page.py), at the conference's base beside the schedule page.
SEARCH_INDEX = "search.json"
HOST = "host.json"


def session_page(session_id: str) -> str:
    """A session's page (a directory; the static build writes its index.html)."""
    return f"{SESSIONS}{session_id}/"


def speaker_page(slug: str) -> str:
    return f"speakers/{slug}/"


def feed_index(kind: str) -> str:
    """Every feed of one kind, on a page of its own (a directory; the static build writes its
    index.html): where the schedule page links a group too long to list (subscribe.py)."""
    return f"subscribe/{kind}/"


# The public changelog (server/pages/changes.py): a page (a directory; the static build writes its
# index.html), its Atom feed, and the recent changes by session for the page's "your picks
# changed" note.
CHANGES = "changes/"
CHANGES_ATOM = "changes.atom"
API_CHANGES = "api/changes"


def day_page(slug: str) -> str:
    """One day of the schedule page (or `all` of them): a path, so a static build has it too."""
    return f"days/{slug}/"


def json_twin(path: str) -> str:
    """The `.json` alias every API document is also served at (for static hosts' media types)."""
    return f"{path}.json"


# --- route templates, relative to a conference's mount ---------------------------------------

ROUTE_PAGE = "/"
ROUTE_FEED = "/feeds/{name}"
ROUTE_FEED_KIND = "/feeds/{kind}/{name}"
ROUTE_SESSION = "/sessions/{name}"
ROUTE_QR = "/qr/{name}"
ROUTE_QR_KIND = "/qr/{kind}/{name}"
ROUTE_PICKS = f"/{API_PICKS}"
ROUTE_PICK_SET = f"/{API_PICKS}/{{token}}"
ROUTE_PICK_CALDAV = f"/{API_PICKS}/{{token}}/caldav"
ROUTE_PERSONAL = "/p/{name}"
ROUTE_STATIC = f"/{STATIC}"
ROUTE_STATIC_FILE = f"/{STATIC}/{{name}}"
ROUTE_SERVICE_WORKER = f"/{SERVICE_WORKER}"
ROUTE_SEARCH_INDEX = f"/{SEARCH_INDEX}"
ROUTE_HOST = f"/{HOST}"
ROUTE_SESSION_PAGE = "/sessions/{id}/"
ROUTE_SPEAKER_PAGE = "/speakers/{slug}/"
# The directories of speakers, tracks and rooms, and each track's and room's page.
SPEAKERS = "speakers/"
TRACKS = "tracks/"
ROOMS = "rooms/"
ROUTE_SPEAKERS = f"/{SPEAKERS}"
ROUTE_TRACKS = f"/{TRACKS}"
ROUTE_ROOMS = f"/{ROOMS}"
ROUTE_TRACK_PAGE = f"/{TRACKS}{{slug}}/"
ROUTE_ROOM_PAGE = f"/{ROOMS}{{slug}}/"
ROUTE_FEED_INDEX = "/subscribe/{kind}/"
ROUTE_DAY_PAGE = "/days/{day}/"
ROUTE_API_FEEDS = f"/{API_FEEDS}"
ROUTE_API_SESSIONS = f"/{API_SESSIONS}"
ROUTE_CONFERENCES = f"/{CONFERENCES_API}"
ROUTE_SCHEDULE_XML = f"/{SCHEDULE_XML}"
ROUTE_SCHEDULE_JSON = f"/{SCHEDULE_JSON}"
# Operations, at the root only (not per conference).
ROUTE_HEALTH = "/healthz"
ROUTE_METRICS = "/metrics"
ROUTE_CHANGES = f"/{CHANGES}"
ROUTE_CHANGES_ATOM = f"/{CHANGES_ATOM}"
ROUTE_API_CHANGES = f"/{API_CHANGES}"
