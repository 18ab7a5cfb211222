"""Every URL path segment and query parameter the app accepts passes through here first.

Feeds, sessions and static files are looked up by name, never joined onto a file path from the
request, but `confcal build` does write files named after slugs and ids, so the same rules guard
both. A segment that fails is answered 400 (malformed) or 404 (well-formed, unknown) with a short
text body, never with an exception.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from starlette.datastructures import QueryParams
from starlette.responses import PlainTextResponse

from feeds.catalogue import FILTER_NAMES
from server.errors import ServerError

# The characters feeds.slug produces, plus the collision suffix; generous on length.
_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,119}")
# Session ids come from feeds.identity; allow what is safe as a single file name on any OS.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,159}")
MAX_QUERY_PARAMS = 32
MAX_QUERY_VALUE = 200
# What a route whose answer no query parameter changes passes to `RouteContext.send`, so that a
# link shared with a click or campaign tag is answered as the plain one.
NO_PARAMS: frozenset[str] = frozenset()


class BadPath(ServerError):
    """A request path segment or query parameter is malformed (answered 400)."""


def slug_segment(segment: str, suffix: str = "") -> str:
    """The slug in `segment` (with `suffix`, e.g. ".ics", removed), or BadPath."""
    return _match(_SLUG, segment, suffix, "feed name")


def conference_segment(segment: str) -> str:
    """The conference slug in a `/c/{slug}/` path segment, or BadPath."""
    return _match(_SLUG, segment, "", "conference")


def id_segment(segment: str, suffix: str = "") -> str:
    """The session id in `segment` (with `suffix` removed), or BadPath."""
    return _match(_ID, segment, suffix, "session id")


def _match(pattern: re.Pattern[str], segment: str, suffix: str, what: str) -> str:
    if suffix:
        if not segment.endswith(suffix):
            raise BadPath(f"{what} must end in {suffix}")
        segment = segment[: -len(suffix)]
    # fullmatch with an anchored class rejects "..", "/", NUL, and anything over-long at once.
    if not pattern.fullmatch(segment):
        raise BadPath(f"malformed {what}")
    return segment


def feed_address(params: Mapping[str, str], suffix: str) -> tuple[str, str] | None:
    """(kind, slug) named by a `{name}` or `{kind}/{name}` route ("all.ics", "room/x.ics"); None
    when no feed can have that address (404), BadPath when a segment is malformed (400)."""
    if "kind" not in params:
        return ("all", "") if params["name"] == f"all{suffix}" else None
    if params["kind"] not in FILTER_NAMES:
        return None
    return params["kind"], slug_segment(params["name"], suffix)


def is_safe_id(value: str) -> bool:
    """Whether `value` could be a file name `confcal build` writes (same rule as the server)."""
    return _ID.fullmatch(value) is not None


def query_items(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The query parameters, bounded in number and size so a filter cannot be made absurd."""
    if len(items) > MAX_QUERY_PARAMS:
        raise BadPath("too many query parameters")
    for name, value in items:
        if len(name) > MAX_QUERY_VALUE or len(value) > MAX_QUERY_VALUE or "\x00" in name + value:
            raise BadPath("malformed query parameter")
    return items


def query_read(reads: frozenset[str], raw: bytes) -> tuple[tuple[str, str], ...] | None:
    """The parameters named in `reads` of the query string `raw`, in order, as a route reading
    only those sees them (Starlette's parsing, `query_items`' bounds); None when it would refuse
    the query."""
    try:
        items = query_items(QueryParams(raw).multi_items())
    except BadPath:
        return None
    return tuple(item for item in items if item[0] in reads)


def bad_request(reason: str) -> PlainTextResponse:
    return PlainTextResponse(f"400 Bad Request: {reason}\n", status_code=400)


def too_many(reason: str, wait: float) -> PlainTextResponse:
    """429 (RFC 6585 §4) with Retry-After: the seconds `wait`, whole."""
    seconds = f"{wait:.0f}"
    return PlainTextResponse(
        f"429 Too Many Requests: {reason}; try again in {seconds} s\n",
        status_code=429,
        headers={"retry-after": seconds},
    )


def not_found(what: str = "no such page") -> PlainTextResponse:
    return PlainTextResponse(f"404 Not Found: {what}\n", status_code=404)
