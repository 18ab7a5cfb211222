"""A pick set's sessions as e-mail invitations (iMIP), under each conference's base:

    POST   /api/picks/{token}/invitations   {"email": "..."} -> 202 the GET document; one
                                            confirmation message goes to the address
    GET    /api/picks/{token}/invitations   -> 200 address (masked), state, confirmed, last
                                            sent, counts, last error ("none" when not asked;
                                            "offered": false without a relay)
    DELETE /api/picks/{token}/invitations?cancel_sent=1|0 -> 204; 1 first cancels the events
                                            already sent, 0 leaves them in the calendar
    GET    /api/invitations/confirm/{code}  the link in the confirmation message: confirms
    GET    /api/invitations/stop/{token}    the stop link: a page asking whether to cancel
    POST   /api/invitations/stop/{token}    stops: RFC 8058's one-click POST keeps the events,
                                            the page's form may ask for them to be cancelled

Nothing but the confirmation is sent to an address before its link is opened, and the link
works for 24 hours. Confirmation requests are limited per client address and per e-mail address
(429 with Retry-After): the form must not become a way to mail strangers. Without a relay
configured (server.mail.settings) GET says `"offered": false`, every other route answers 404,
and the page hides the option.

The address is never logged (the access log shows these paths with their codes replaced, as
pick tokens are: server.web.access_log) and never answered in full. Answers are JSON with
`Cache-Control: private, no-store`, apart from the two pages.
"""

from __future__ import annotations

import html
import json
import logging
import time
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import parse_qs

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from feeds import urls
from feeds.model import Conference
from server.crypto import SecretError
from server.jobs.invitations import Held, Sender, cancel_sent
from server.mail.address import Address, BadAddress, parse_address
from server.mail.messages import confirmation
from server.mail.settings import MailSettings, MailSettingsInvalid, mail_settings
from server.mail.smtp import PermanentFailure, Relay, SendFailed
from server.snapshot.published import Published
from server.store.invitations import CONFIRM_TTL, AlreadyActive, Invitation, Invitations
from server.store.picks import PickSet
from server.web.bodies import BodyError, check_json_media_type, read_limited
from server.web.context import AppContext, app_context
from server.web.picks_api import body_error, busy_is_503, error_reply, json_reply
from server.web.ratelimit import Rate, TokenBuckets, client_key

log = logging.getLogger("confcal.web.invitations")

ROUTE_INVITATIONS = f"/{urls.API_PICKS}/{{token}}/invitations"
ROUTE_CONFIRM = "/api/invitations/confirm/{code}"
ROUTE_STOP = "/api/invitations/stop/{stop}"
MAX_BODY = 1024
MAX_STOP_BODY = 4096
# A few tries to get an address right, not a way to mail strangers from one machine.
PER_CLIENT = Rate(burst=10, per_hour=30)
# Each request mails the address: at most a handful a day reach anyone's inbox.
PER_ADDRESS = Rate(burst=3, per_hour=3)
RELAY_RETRY_AFTER_S = 60
STOP_WAIT_S = 30.0

NOTHING_ASKED: dict[str, object] = {
    "offered": True,
    "email": None,
    "state": "none",
    "confirmed": False,
    "confirm_expires": None,
    "last_sent": None,
    "counts": None,
    "last_error": None,
}


@dataclass(frozen=True)
class Desk:
    """What these routes share in one server process, made with its first request."""

    settings: MailSettings
    table: Invitations
    per_client: TokenBuckets
    per_address: TokenBuckets


def _desk(request: Request, context: AppContext) -> Desk | None:
    state = request.app.state
    if not hasattr(state, "invitations_desk"):
        try:
            settings = mail_settings()
        except MailSettingsInvalid as exc:
            log.error("invitations by e-mail are off: %s", exc)
            settings = None
        state.invitations_desk = (
            None
            if settings is None
            else Desk(
                settings,
                Invitations(context.picks.engine),
                TokenBuckets(PER_CLIENT),
                TokenBuckets(PER_ADDRESS),
            )
        )
    desk: Desk | None = state.invitations_desk
    return desk


def _not_offered() -> Response:
    return error_reply("this server does not send invitations by e-mail", 404)


def state_document(found: Invitation | None) -> dict[str, object]:
    if found is None:
        return NOTHING_ASKED
    return {
        "offered": True,
        "email": found.masked,
        "state": found.state.value,
        "confirmed": found.confirmed is not None,
        "confirm_expires": None if found.confirm_expires is None else found.confirm_expires.isoformat(),
        "last_sent": None if found.last_sent is None else found.last_sent.isoformat(),
        "counts": {"requests": found.requests, "cancels": found.cancels},
        "last_error": found.last_error,
    }


async def _owned(request: Request, context: AppContext) -> tuple[PickSet, Published] | None:
    pickset = await anyio.to_thread.run_sync(context.picks.get, request.path_params["token"])
    published = await context.current(request)
    if pickset is None or pickset.conference != published.conference.slug:
        return None
    return pickset, published


def _email(body: bytes) -> str:
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise BodyError("the body is not JSON") from None
    if not isinstance(document, dict) or set(document) != {"email"} or not isinstance(document["email"], str):
        raise BodyError('send {"email": "name@example.org"}', 422)
    email: str = document["email"]
    return email


def _limited(wait: float | None, what: str) -> Response | None:
    if wait is None:
        return None
    return json_reply(
        {"error": f"too many confirmation requests {what}; try again in {wait:.0f} s"},
        429,
        **{"retry-after": f"{wait:.0f}"},
    )


@dataclass(frozen=True)
class _Asked:
    """What a request on a pick set's invitations works with."""

    context: AppContext
    desk: Desk
    pickset: PickSet
    published: Published


async def _asked(request: Request) -> _Asked | Response:
    """The request's context, desk, pick set and snapshot, or the answer when there is none."""
    context = app_context(request)
    desk = _desk(request, context)
    if desk is None:
        return _not_offered()
    owned = await _owned(request, context)
    if owned is None:
        return error_reply("no such pick set", 404)
    return _Asked(context, desk, *owned)


async def ask(request: Request) -> Response:
    asked = await _asked(request)
    if isinstance(asked, Response):
        return asked
    context, desk, pickset, published = asked.context, asked.desk, asked.pickset, asked.published
    try:
        check_json_media_type(request.headers.get("content-type"))
        body = await read_limited(request.headers.get("content-length"), request.stream(), MAX_BODY)
        address = parse_address(_email(body))
    except BodyError as exc:
        return body_error(exc)
    except BadAddress as exc:
        return error_reply(str(exc), 422)
    now = time.monotonic()
    client = client_key(request.client.host if request.client else None)
    limited = _limited(desk.per_client.take(client, now), "from your address")
    if limited is not None:
        return limited
    try:
        key = desk.table.address_key(str(address))
    except SecretError as exc:
        return json_reply({"error": f"this server cannot keep addresses: {exc}"}, 503, **{"retry-after": "300"})
    limited = _limited(desk.per_address.take(key, now), "for this e-mail address")
    if limited is not None:
        return limited
    site = context.site(request)
    try:
        found, code = await anyio.to_thread.run_sync(
            lambda: desk.table.request(pickset.conference, pickset.token, str(address), site.base_url, context.clock())
        )
    except AlreadyActive as exc:
        return error_reply(str(exc), 409)
    message = confirmation(
        published.conference,
        desk.settings.sender,
        address,
        confirm=site.url(f"api/invitations/confirm/{code}"),
        now=context.clock(),
        hours=int(CONFIRM_TTL.total_seconds() // 3600),
    )
    try:
        await anyio.to_thread.run_sync(lambda: _send_once(desk.settings, message, address))
    except PermanentFailure as exc:
        await anyio.to_thread.run_sync(desk.table.stop, found.id)
        return error_reply(str(exc), 422)
    except SendFailed as exc:
        log.warning("invitation %d: confirmation not sent: %s", found.id, type(exc).__name__)
        return json_reply(
            {"error": f"the confirmation could not be sent now: {exc}"},
            503,
            **{"retry-after": str(RELAY_RETRY_AFTER_S)},
        )
    return json_reply(state_document(found), 202)


async def read(request: Request) -> Response:
    """Without a relay, 200 `{"offered": false}` rather than 404: the page asks on every load
    with picks, and a browser reports each 404 as an error in its console."""
    context = app_context(request)
    desk = _desk(request, context)
    owned = await _owned(request, context)
    if owned is None:
        return error_reply("no such pick set", 404)
    if desk is None:
        return json_reply({**NOTHING_ASKED, "offered": False})
    found = await anyio.to_thread.run_sync(desk.table.by_token, owned[0].token)
    return json_reply(state_document(found))


async def stop(request: Request) -> Response:
    asked = await _asked(request)
    if isinstance(asked, Response):
        return asked
    choice = request.query_params.get("cancel_sent")
    if choice not in ("0", "1"):
        return error_reply(
            "say cancel_sent=1 to remove the events already sent from the calendar, or cancel_sent=0 to keep them",
            400,
        )
    found = await anyio.to_thread.run_sync(asked.desk.table.by_token, asked.pickset.token)
    if found is None:
        return error_reply("no invitations are sent for these picks", 404)
    failure = await _stop(asked.desk, found, asked.published, choice == "1", asked.context)
    if failure is not None:
        return json_reply({"error": failure[0]}, failure[1], **({"retry-after": "10"} if failure[1] == 503 else {}))
    return Response(status_code=204, headers={"cache-control": "private, no-store"})


async def _stop(
    desk: Desk, found: Invitation, published: Published, cancel: bool, context: AppContext
) -> tuple[str, int] | None:
    """Stop `found`, cancelling what was sent first if asked; None when stopped, else the
    reason and the status to answer with."""
    conference: Conference = published.conference
    waited = 0.0
    while cancel:
        try:
            await anyio.to_thread.run_sync(lambda: _cancel_sent(desk, found, conference, published, context))
            break
        except Held:
            if waited >= STOP_WAIT_S:
                return "invitations are being sent right now; try again shortly", 503
            await anyio.sleep(0.5)
            waited += 0.5
        except SendFailed as exc:
            return f"the events could not be cancelled: {exc}", 503
    await anyio.to_thread.run_sync(desk.table.stop, found.id)
    return None


def _send_once(settings: MailSettings, message: EmailMessage, to: Address) -> None:
    """One message on a connection of its own: the web processes send rarely (a confirmation,
    the cancels of a stop), so they keep no connection to the relay open."""
    relay = Relay(settings)
    try:
        relay.send(message, to)
    finally:
        relay.close()


def _cancel_sent(
    desk: Desk, found: Invitation, conference: Conference, published: Published, context: AppContext
) -> int:
    sender = Sender.of(desk.settings)
    try:
        return cancel_sent(desk.table, found.id, sender, conference, published.session, context.clock)
    finally:
        sender.relay.close()


async def confirm(request: Request) -> Response:
    context = app_context(request)
    desk = _desk(request, context)
    if desk is None:
        return _page("Not offered", "This server does not send invitations by e-mail.", 404)
    found = await anyio.to_thread.run_sync(lambda: desk.table.confirm(request.path_params["code"], context.clock()))
    if found is None:
        return _page(
            "Link not valid",
            "This link was used already, or has expired (links work for 24 hours). Ask again from the schedule page.",
            404,
        )
    await anyio.to_thread.run_sync(context.sync.invitations_due, found.pick_token)
    return _page(
        "Invitations confirmed",
        "Your picked sessions will arrive as calendar invitations within a minute, and every change to them after. "
        "Each message has a link to stop them.",
        200,
    )


async def stop_page(request: Request) -> Response:
    context = app_context(request)
    desk = _desk(request, context)
    found = None if desk is None else await anyio.to_thread.run_sync(desk.table.by_stop, request.path_params["stop"])
    if found is None:
        return _page("Already stopped", "No invitations are sent with this link.", 404)
    form = (
        '<form method="post"><p><button name="cancel_sent" value="1">Stop, and remove the sessions from my calendar'
        '</button></p><p><button name="cancel_sent" value="0">Stop, and keep the sessions in my calendar</button></p>'
        "</form>"
    )
    return _page(
        "Stop the invitations?", f"No more invitations will be sent to {html.escape(found.masked)}.", 200, form
    )


async def stop_link(request: Request) -> Response:
    """RFC 8058: a POST stops; the body `List-Unsubscribe=One-Click` (what mail providers send)
    keeps the events, the page's `cancel_sent=1` cancels them first."""
    context = app_context(request)
    desk = _desk(request, context)
    if desk is None:
        return _page("Not offered", "This server does not send invitations by e-mail.", 404)
    try:
        body = await read_limited(request.headers.get("content-length"), request.stream(), MAX_STOP_BODY)
    except BodyError as exc:
        return _page("Not understood", str(exc), exc.status)
    cancel = parse_qs(body.decode("ascii", "replace")).get("cancel_sent") == ["1"]
    found = await anyio.to_thread.run_sync(desk.table.by_stop, request.path_params["stop"])
    if found is None:
        return _page("Already stopped", "No invitations are sent with this link.", 200)
    published = await context.current(request)
    if published.conference.slug != found.conference:
        return _page("Not here", "This link belongs to another conference's page.", 404)
    failure = await _stop(desk, found, published, cancel, context)
    if failure is not None:
        return _page("Not stopped yet", failure[0], failure[1])
    said = (
        "The sessions sent were removed from your calendar." if cancel else "The sessions sent stay in your calendar."
    )
    return _page("Invitations stopped", f"Nothing more will be sent to this address. {said}", 200)


def _page(title: str, text: str, status: int, extra: str = "") -> HTMLResponse:
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title></head><body><main><h1>{html.escape(title)}</h1>"
        f"<p>{html.escape(text) if not extra else text}</p>{extra}</main></body></html>"
    )
    return HTMLResponse(body, status_code=status, headers={"cache-control": "private, no-store"})


routes = [
    Route(ROUTE_INVITATIONS, busy_is_503(ask), methods=["POST"]),
    Route(ROUTE_INVITATIONS, busy_is_503(read), methods=["GET", "HEAD"]),
    Route(ROUTE_INVITATIONS, busy_is_503(stop), methods=["DELETE"]),
    Route(ROUTE_CONFIRM, busy_is_503(confirm), methods=["GET"]),
    Route(ROUTE_STOP, busy_is_503(stop_page), methods=["GET", "HEAD"]),
    Route(ROUTE_STOP, busy_is_503(stop_link), methods=["POST"]),
]
