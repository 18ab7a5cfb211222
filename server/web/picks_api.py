"""The picks API and the personal feed.

    POST /api/picks          {"sessions": [ids]} -> 201 {"token", "sessions", "feed", "webcal", ...}
    GET  /api/picks/{token}  -> 200 the same document
    PUT  /api/picks/{token}  {"sessions": [ids]} -> 200, the set replaced as a whole
    GET  /p/{token}.ics      the personal feed (?download=1: the same bytes as an attachment)
    GET  /p/{token}.svg      its link as a QR code

Bodies are checked by server.web.bodies (JSON only, bounded). Creation is rate-limited per
client (server.web.ratelimit: 429 with Retry-After). A store that stays locked is a 503 with
Retry-After, never a 500. API errors are JSON `{"error": "..."}` with 400/404/413/415/422/429/503
and, like every API answer, `Cache-Control: private, no-store` (server.snapshot.conditional decides
caching). Reads are noted for expiry (server.web.pick_upkeep). The personal feed is rendered like every other feed (same VEVENT bytes from the snapshot's
EventCache, so the same UIDs; cancelled sessions kept for the grace period by
`catalogue.select`) and answered through `conditional.respond`, so it has ETag and 304 too.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from feeds.errors import FeedsError
from feeds.ical import render_calendar
from feeds.model import Schedule, Session
from feeds.query import FeedQuery, select
from server.errors import StoreBusy
from server.links import Site
from server.pages import params
from server.pages.changes import change_notes
from server.pages.qr import qr_svg
from server.snapshot.api import to_json
from server.snapshot.conditional import CALENDAR, JSON, NO_STORE, Representation
from server.snapshot.published import Published, last_modified
from server.store.picks import PickSet
from server.web.bodies import MAX_PICKS_BODY, BodyError, check_json_media_type, picks_body, read_limited
from server.web.context import AppContext, app_context
from server.web.ratelimit import client_key


def pick_document(pickset: PickSet, site: Site) -> dict[str, object]:
    path = urls.pick_feed(pickset.token)
    return {
        "token": pickset.token,
        "sessions": list(pickset.sessions),
        # Absolute, like "webcal": these are for pasting into a calendar app.
        "feed": site.url(path),
        "webcal": site.webcal(path),
        "google": site.google(path),
        "download": site.url(path) + "?download=1",
        "qr": site.path(urls.pick_qr(pickset.token)),
    }


# How long deploy/nginx may answer a personal feed from its memory (tmpfs) cache, keyed by the
# feed's whole URL: calendar apps poll personal feeds as often as the public ones, and each poll
# otherwise reaches the app. A changed pick set shows within this time.
PROXY_SECONDS = 1


def personal_feed(
    published: Published,
    pickset: PickSet,
    *,
    download: bool = False,
    alarm: int | None = None,
    notes: Mapping[str, str] | None = None,
) -> Representation:
    """The picked sessions of the current snapshot as one calendar, "<conference> - My picks".
    `notes` (server.pages.changes.change_notes) puts a session's last move or retitle in front
    of its description: only here, so every other feed keeps its bytes."""
    conference = published.conference
    found = [s for s in map(published.session, pickset.sessions) if s is not None]
    if notes:
        found = [_noted(s, notes[s.id]) if s.id in notes else s for s in found]
    # select() applies the same grace period for cancelled sessions and the same order as
    # every catalogue feed.
    sessions = select(Schedule(conference, tuple(found)), FeedQuery(), now=published.now)
    body = render_calendar(
        conference,
        sessions,
        title=f"{conference.name} - My picks",
        base_url=published.base_url,
        cache=published.cache,
        alarm=alarm,
    )
    # The set's own change time counts too: adding an older session must still move
    # Last-Modified, or If-Modified-Since would answer 304 for a changed feed.
    stamps = [t for t in (last_modified(sessions), pickset.updated) if t is not None]
    headers: tuple[tuple[str, str], ...] = ()
    if download:
        headers = (("content-disposition", 'attachment; filename="my-picks.ics"'),)
    return Representation(body, CALENDAR, max(stamps), headers, personal=True, proxy_seconds=PROXY_SECONDS)


def personal_key(pickset: PickSet, download: bool = False, alarm: int | None = None) -> tuple[object, ...]:
    """What a personal feed is remembered under in its snapshot (Published.personal): its content,
    never the token alone, since a replaced set has a new change time. The change notes follow
    from the snapshot, so they need no place in the key."""
    return (pickset.conference, pickset.sessions, pickset.updated, download, alarm)


def _noted(session: Session, note: str) -> Session:
    text = session.description.strip()
    return dataclasses.replace(session, description=f"{note}\n\n{text}" if text else note)


def json_reply(document: dict[str, object], status: int = 200, **headers: str) -> Response:
    return Response(
        to_json(document),
        status_code=status,
        media_type=JSON,
        headers={"cache-control": NO_STORE, **headers},
    )


def error_reply(message: str, status: int) -> Response:
    return json_reply({"error": message}, status)


def body_error(exc: BodyError) -> Response:
    return error_reply(str(exc), exc.status)


async def read_body(request: Request) -> bytes:
    check_json_media_type(request.headers.get("content-type"))
    return await read_limited(request.headers.get("content-length"), request.stream(), MAX_PICKS_BODY)


# How long a client should wait when the store is locked (an ingest writing, on SQLite).
BUSY_RETRY_AFTER_S = 5

Handler = Callable[[Request], Awaitable[Response]]


def busy_is_503(handler: Handler) -> Handler:
    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except StoreBusy:
            return json_reply(
                {"error": "pick sets cannot be saved right now; try again shortly"},
                503,
                **{"retry-after": str(BUSY_RETRY_AFTER_S)},
            )

    return guarded


async def _owned(request: Request, context: AppContext, token: str) -> PickSet | None:
    # A pick set belongs to one conference: under another's base its token is unknown.
    kept = context.recent_picks
    pickset = kept.get(token)
    if pickset is None:
        pickset = kept.keep(await anyio.to_thread.run_sync(context.picks.get, token))
    published = await context.current(request)
    if pickset is None or pickset.conference != published.conference.slug:
        return None
    return pickset


async def _parsed(request: Request, context: AppContext) -> tuple[Published, tuple[str, ...]]:
    published = await context.current(request)
    body = await read_body(request)
    return published, picks_body(body, lambda i: published.session(i) is not None)


async def create(request: Request) -> Response:
    context = app_context(request)
    try:
        published, ids = await _parsed(request, context)
    except BodyError as exc:
        return body_error(exc)
    client = client_key(request.client.host if request.client else None)
    wait = context.creations.take(client, time.monotonic())
    if wait is not None:
        return json_reply(
            {"error": f"too many pick sets created from your address; try again in {wait:.0f} s"},
            429,
            **{"retry-after": f"{wait:.0f}"},
        )
    try:
        pickset = await anyio.to_thread.run_sync(context.picks.create, published.conference.slug, ids)
    except BaseException:
        context.creations.give_back(client, time.monotonic())
        raise
    context.recent_picks.keep(pickset)
    site = context.site(request)
    location = site.path(urls.pick_set(pickset.token))
    return json_reply(pick_document(pickset, site), 201, location=location)


async def read(request: Request) -> Response:
    context = app_context(request)
    pickset = await _owned(request, context, request.path_params["token"])
    if pickset is None:
        return error_reply("no such pick set", 404)
    context.upkeep.note_read(pickset.token)
    return json_reply(pick_document(pickset, context.site(request)))


async def replace(request: Request) -> Response:
    """A replaced set's attached calendar wants a sync: `context.sync.picks_changed`."""
    context = app_context(request)
    token = request.path_params["token"]
    # An unknown token is 404 whatever the body says.
    if await _owned(request, context, token) is None:
        return error_reply("no such pick set", 404)
    try:
        _, ids = await _parsed(request, context)
    except BodyError as exc:
        return body_error(exc)
    pickset = context.recent_picks.keep(await anyio.to_thread.run_sync(context.picks.replace, token, ids))
    if pickset is None:
        return error_reply("no such pick set", 404)
    await anyio.to_thread.run_sync(context.sync.picks_changed, token)
    return json_reply(pick_document(pickset, context.site(request)))


async def feed(request: Request) -> Response:
    context = app_context(request)
    name: str = request.path_params["name"]
    token, dot, suffix = name.rpartition(".")
    pickset = None
    if dot and suffix in ("ics", "svg"):
        pickset = await _owned(request, context, token)
    if pickset is None:
        return params.not_found("no such personal feed")
    context.upkeep.note_read(pickset.token)
    site = context.site(request)
    if suffix == "svg":
        # The feed link as a QR code: picked on a laptop, subscribed on the phone.
        url = site.url(urls.pick_feed(pickset.token))
        qr = qr_svg(url, "Subscribe: my picks")
        return context.send(request, dataclasses.replace(qr, personal=True))
    download = request.query_params.get("download") == "1"
    try:  # `?alarm=` as on every feed; other parameters are not filters here
        alarm = FeedQuery.from_params((n, v) for n, v in request.query_params.multi_items() if n == "alarm").alarm
    except FeedsError as exc:
        return params.bad_request(str(exc))
    published = await context.current(request)
    key = personal_key(pickset, download, alarm)
    rep = published.personal(key)
    if rep is None:

        def make() -> Representation:
            notes = change_notes(published, context.store)
            return personal_feed(published, pickset, download=download, alarm=alarm, notes=notes)

        # `alarm=` takes 1,441 values, each a feed made anew: counted as a filtered feed is.
        made = await (anyio.to_thread.run_sync(make) if alarm is None else context.made(request, make))
        rep = published.remember_personal(key, made)
    return context.send(request, rep)


routes = [
    Route(urls.ROUTE_PICKS, busy_is_503(create), methods=["POST"]),
    Route(urls.ROUTE_PICK_SET, busy_is_503(read), methods=["GET", "HEAD"]),
    Route(urls.ROUTE_PICK_SET, busy_is_503(replace), methods=["PUT"]),
    Route(urls.ROUTE_PERSONAL, busy_is_503(feed), methods=["GET", "HEAD"]),
]
