"""Request bodies: every check between the bytes a client sends and the values a handler uses.

A body is accepted only as `application/json` (RFC 8259; a cross-site form or `text/plain` POST
needs no CORS preflight, so refusing other media types keeps other sites from creating pick
sets), read up to a byte limit whether or not Content-Length is sent (RFC 9112 §6: a chunked
body has none), and parsed with bounds the standard parser does not have: nesting depth and
number length. Every failure is a `BodyError` carrying the 4xx status to answer with, so no
malformed body reaches a 500.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

from starlette.requests import ClientDisconnect

from server.errors import ServerError

JSON_MEDIA_TYPE = "application/json"
# Longer digit strings are no count or id anyone sends; CPython refuses int() over 4,300 digits.
MAX_NUMBER_CHARS = 40

MAX_PICKS = 500
# 500 ids of up to 160 characters, quoted, plus the envelope: anything bigger is not a pick set.
MAX_PICKS_BODY = 96 * 1024


class BodyError(ServerError):
    """A request body cannot be used; `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def check_json_media_type(content_type: str | None) -> None:
    """415 unless Content-Type is application/json (parameters such as charset allowed)."""
    media_type = (content_type or "").partition(";")[0].strip().lower()
    if media_type != JSON_MEDIA_TYPE:
        raise BodyError(f"send the body as Content-Type: {JSON_MEDIA_TYPE}", 415)


async def read_limited(content_length: str | None, chunks: AsyncIterator[bytes], limit: int) -> bytes:
    """The body, refused with 413 as soon as it is known to pass `limit`: from Content-Length
    before reading anything, else while streaming, so a client cannot make us buffer more."""
    too_big = BodyError(f"request body over {limit} bytes", 413)
    if content_length is not None:
        declared = content_length.strip()
        if not declared.isdigit():
            raise BodyError("malformed Content-Length")
        if len(declared) > 18 or int(declared) > limit:
            raise too_big
    received: list[bytes] = []
    size = 0
    try:
        async for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise too_big
            received.append(chunk)
    except ClientDisconnect:
        # The ASGI server reports a body it cannot decode (a chunk size or extension over its
        # limits, bad framing) as the client going away: the request is the client's fault, and
        # if the client is still there it gets a 400 rather than a 500 with a traceback logged.
        raise BodyError("request body is malformed or cut off (its chunked encoding cannot be read)") from None
    return b"".join(received)


def _number(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise BodyError(f"request body has a number over {MAX_NUMBER_CHARS} characters")
    return float(text)


def _no_constant(name: str) -> object:
    raise BodyError(f"request body is not JSON: {name} is not a JSON value")


def parse_json(body: bytes) -> object:
    """The JSON value of `body` (UTF-8 as RFC 8259 §8.1 asks; json also detects UTF-16/32), or
    400 naming what is wrong.

    Numbers come back as floats: no caller needs exact integers, and parsing long digit strings
    as int is quadratic (CPython caps it with a ValueError instead).
    """
    try:
        return json.loads(body, parse_int=_number, parse_float=_number, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BodyError(f"request body is not JSON: {exc}") from None
    except RecursionError:
        # The C parser counts its own depth and stops at the interpreter's recursion limit.
        raise BodyError("request body nests too deeply") from None


def picks_body(body: bytes, known: Callable[[str], bool]) -> tuple[str, ...]:
    """The session ids of a `{"sessions": [ids]}` body, first-seen order, without repeats.

    400: not JSON (or nested too deeply, or an absurd number), or an id `known` rejects (the message
    names it); 422: JSON of the wrong shape; 413: more than MAX_PICKS distinct ids.
    """
    document = parse_json(body)
    if not isinstance(document, dict) or "sessions" not in document:
        raise BodyError('expected a JSON object {"sessions": [session ids]}', 422)
    ids = document["sessions"]
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise BodyError('"sessions" must be a list of session id strings', 422)
    unique = tuple(dict.fromkeys(ids))
    if len(unique) > MAX_PICKS:
        raise BodyError(f"at most {MAX_PICKS} sessions can be picked, got {len(unique)}", 413)
    unknown = [i for i in unique if not known(i)]
    if unknown:
        named = ", ".join(repr(i[:80]) for i in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        noun = "session id" if len(unknown) == 1 else "session ids"
        raise BodyError(f"unknown {noun} {named}{more}")
    return unique
