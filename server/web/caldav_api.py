"""The calendar a pick set is synced into, under each conference's base:

    POST   /api/picks/{token}/caldav   {"url", "username", "password"} -> 201 the GET document;
                                          with "new_calendar": NAME, url is the calendar home
                                          (from discovery) and a calendar NAME is made there first
    POST   /api/picks/{token}/caldav/calendars   {"server", "username", "password"} -> 200 the
                                          account's calendars (server: a URL or an e-mail address)
    GET    /api/picks/{token}/caldav   -> 200 url, username, state, last sync, counts, last error
                                          (state "detached" and nulls when none is attached)
    DELETE /api/picks/{token}/caldav   -> 204; ?remove_events=1 first deletes confcal's events there

POST checks before it stores anything: the body (server.web.caldav_body), then the calendar
itself through the push service's probe (address guard, credentials, calendar collection), so an
attach that cannot work is a 4xx with a one-line reason: 422 for what the attendee can fix (address
not allowed, credentials refused, not a calendar), 502 when the calendar server is unreachable or
failing. On success the target is stored (password encrypted: server.crypto) and a sync requested.
Re-posting replaces URL and credentials (the way out of `needs_credentials`). Probes and
removals run on server.web.probe_pool's few threads (503 with Retry-After when all are busy), and
probes are limited per address and per pick set (server.web.context; 429 with Retry-After).

The password is never returned, logged or put in a message. An unknown token is 404, as in the
picks API; answers are JSON with `Cache-Control: private, no-store`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import TypeVar

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from server.crypto import SecretError
from server.store.caldav_targets import CalendarTaken, Target, TargetState
from server.store.picks import PickSet
from server.web.bodies import BodyError, check_json_media_type, read_limited
from server.web.caldav_body import MAX_CALDAV_BODY, caldav_body, discovery_body
from server.web.calendars import CalendarUnusable
from server.web.context import AppContext, app_context
from server.web.picks_api import body_error, busy_is_503, error_reply, json_reply
from server.web.probe_pool import PoolBusy
from server.web.ratelimit import client_key

B = TypeVar("B")

# A sync of the same calendar holds its lease for at most this long; DELETE with remove_events
# waits for it this long before answering 503.
DETACH_WAIT_S = 30.0
DETACH_LEASE = timedelta(minutes=10)
KEYLESS_RETRY_AFTER_S = 300
CHECKS_BUSY_RETRY_AFTER_S = 5


# What GET answers for a pick set with no calendar: a page asking "is one attached?" is no error.
NOTHING_ATTACHED: dict[str, object] = {
    "url": None,
    "username": None,
    "state": "detached",
    "sync_pending": False,
    "last_sync": None,
    "last_result": None,
    "counts": None,
    "checks_writes": False,
    "last_error": None,
}


def target_document(target: Target) -> dict[str, object]:
    """What GET answers: never the password (the Target carries none)."""
    counts = target.counts
    return {
        "url": target.url,
        "username": target.username,
        "state": target.state.value,
        "sync_pending": target.state is TargetState.ACTIVE and target.wanted_generation > target.synced_generation,
        "last_sync": None if target.last_sync is None else target.last_sync.isoformat(),
        "last_result": target.last_result,
        "counts": None
        if counts is None
        else {
            "created": counts.created,
            "updated": counts.updated,
            "deleted": counts.deleted,
            "unchanged": counts.unchanged,
            "conflicts": counts.conflicts,
            "elsewhere": counts.elsewhere,
        },
        # The server ignores If-None-Match / If-Match (SOGo): confcal reads and compares first.
        "checks_writes": bool(counts and counts.checked_writes),
        "last_error": target.last_error,
    }


async def _owned(request: Request, context: AppContext) -> PickSet | None:
    pickset = await anyio.to_thread.run_sync(context.picks.get, request.path_params["token"])
    published = await context.current(request)
    if pickset is None or pickset.conference != published.conference.slug:
        return None
    return pickset


async def attach(request: Request) -> Response:
    """After each attach `context.sync.attached(target_id)` runs (the jobs enqueue a sync)."""
    context = app_context(request)
    checked = await _checked(request, context, caldav_body)
    if isinstance(checked, Response):
        return checked
    pickset, wanted = checked
    try:
        if wanted.new_calendar is not None:
            made = await context.probes.run(lambda: context.calendars.create(wanted))
            wanted = replace(wanted, url=made, new_calendar=None)
        await context.probes.run(lambda: context.calendars.probe(wanted))
    except CalendarUnusable as exc:
        return error_reply(str(exc), exc.status)
    except PoolBusy:
        return _checks_busy()
    try:
        target = await anyio.to_thread.run_sync(
            lambda: context.caldav_targets.attach(
                pickset.conference,
                pickset.token,
                wanted.url,
                wanted.username,
                wanted.password,
                context.clock(),
            )
        )
    except CalendarTaken as exc:
        return error_reply(str(exc), 409)
    except SecretError as exc:
        # The operator's to fix (docs/security.md, "Stored passwords"); the attendee can only wait.
        return json_reply(
            {"error": f"this server cannot store calendar passwords: {exc}"},
            503,
            **{"retry-after": str(KEYLESS_RETRY_AFTER_S)},
        )
    await anyio.to_thread.run_sync(context.sync.attached, target.id)
    location = context.site(request).path(urls.pick_caldav(pickset.token))
    return json_reply(target_document(target), 201, location=location)


async def calendars(request: Request) -> Response:
    """The account's calendars, for the attendee to choose one: discovery from a server's address
    or an e-mail address, on the probe threads and under the attach limits (a discovery is a
    check of the account as much as an attach is)."""
    context = app_context(request)
    checked = await _checked(request, context, discovery_body)
    if isinstance(checked, Response):
        return checked
    _, account = checked
    try:
        found = await context.probes.run(lambda: context.calendars.discover(account))
    except CalendarUnusable as exc:
        return error_reply(str(exc), exc.status)
    except PoolBusy:
        return _checks_busy()
    return json_reply(
        {
            "server": account.server,
            "home": found.home,
            "calendars": [
                {"url": c.url, "name": c.label, "color": c.color, "events": c.events} for c in found.calendars
            ],
        }
    )


async def _checked(request: Request, context: AppContext, parse: Callable[[bytes], B]) -> tuple[PickSet, B] | Response:
    """The pick set and the parsed body of a calendar check, or the answer refusing it: 404 for an
    unknown token, the body's 4xx, 429 past the attach limits."""
    pickset = await _owned(request, context)
    if pickset is None:
        return error_reply("no such pick set", 404)
    try:
        check_json_media_type(request.headers.get("content-type"))
        body = await read_limited(request.headers.get("content-length"), request.stream(), MAX_CALDAV_BODY)
        parsed = parse(body)
    except BodyError as exc:
        return body_error(exc)
    limited = _attach_limited(request, context, pickset.token)
    if limited is not None:
        return limited
    return pickset, parsed


def _attach_limited(request: Request, context: AppContext, token: str) -> Response | None:
    """429 with Retry-After when this address, or this pick set, asked for too many checks."""
    now = time.monotonic()
    client = client_key(request.client.host if request.client else None)
    wait = context.attaches_per_client.take(client, now)
    if wait is None:
        wait = context.attaches_per_pickset.take(token, now)
    if wait is None:
        return None
    return json_reply(
        {"error": f"too many calendar checks asked for; try again in {wait:.0f} s"},
        429,
        **{"retry-after": f"{wait:.0f}"},
    )


def _checks_busy() -> Response:
    return json_reply(
        {"error": "the server is checking other calendars; try again shortly"},
        503,
        **{"retry-after": str(CHECKS_BUSY_RETRY_AFTER_S)},
    )


async def read(request: Request) -> Response:
    context = app_context(request)
    pickset = await _owned(request, context)
    if pickset is None:
        return error_reply("no such pick set", 404)
    target = await anyio.to_thread.run_sync(context.caldav_targets.by_token, pickset.token)
    return json_reply(NOTHING_ATTACHED if target is None else target_document(target))


async def detach(request: Request) -> Response:
    context = app_context(request)
    pickset = await _owned(request, context)
    if pickset is None:
        return error_reply("no such pick set", 404)
    remove = request.query_params.get("remove_events", "0")
    if remove not in ("0", "1"):
        return error_reply("remove_events must be 0 or 1", 400)
    if remove == "1":
        failure = await _remove_events(context, pickset)
        if failure is not None:
            return failure
    gone = await anyio.to_thread.run_sync(context.caldav_targets.detach, pickset.token)
    if not gone:
        return error_reply("no calendar is attached to these picks", 404)
    return Response(status_code=204, headers={"cache-control": "private, no-store"})


async def _remove_events(context: AppContext, pickset: PickSet) -> Response | None:
    """Delete confcal's events from the calendar under the target's lease, so no sync writes
    meanwhile; None when done (or nothing is attached), else the answer to give."""
    targets = context.caldav_targets
    owner = f"detach-{uuid.uuid4().hex}"
    before = await anyio.to_thread.run_sync(targets.by_token, pickset.token)
    if before is None:
        return None
    waited = 0.0
    while True:
        target = await anyio.to_thread.run_sync(
            lambda: targets.begin_detach(pickset.token, owner, context.clock(), DETACH_LEASE)
        )
        if target is not None:
            break
        if await anyio.to_thread.run_sync(targets.by_token, pickset.token) is None:
            return None
        if waited >= DETACH_WAIT_S:
            return json_reply(
                {"error": "a sync of this calendar is running; try again shortly"},
                503,
                **{"retry-after": "10"},
            )
        await anyio.sleep(0.5)
        waited += 0.5
    try:
        await context.probes.run(lambda: context.calendars.remove(targets, target))
    except PoolBusy:
        await anyio.to_thread.run_sync(targets.abort_detach, target.id, owner, before.state)
        return _checks_busy()
    except (CalendarUnusable, SecretError) as exc:
        await anyio.to_thread.run_sync(targets.abort_detach, target.id, owner, before.state)
        status = exc.status if isinstance(exc, CalendarUnusable) else 503
        return error_reply(f"the events could not be removed: {exc}", status)
    return None


routes = [
    Route(urls.ROUTE_PICK_CALDAV, busy_is_503(attach), methods=["POST"]),
    Route(urls.ROUTE_PICK_CALDAV + "/calendars", busy_is_503(calendars), methods=["POST"]),
    Route(urls.ROUTE_PICK_CALDAV, busy_is_503(read), methods=["GET", "HEAD"]),
    Route(urls.ROUTE_PICK_CALDAV, busy_is_503(detach), methods=["DELETE"]),
]
