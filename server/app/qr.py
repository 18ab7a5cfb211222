"""QR codes of feed links, drawn as SVG by the server (segno), for slides and posters.

    GET /qr/all.svg, /qr/{kind}/{slug}.svg (urls.feed_qr), under each conference's base

The code holds the feed's absolute https(http) link rather than webcal://: every phone camera
opens an https link, while webcal:// is only understood where a calendar app registered it, and
calendar apps accept the https link for a subscription too. The SVG depends only on that text,
so it is memoized by it and answered through `conditional.respond` (ETag, 304) like every feed.
"""

from __future__ import annotations

import io
from functools import lru_cache

import segno
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.app import params, urls
from server.app.conditional import Representation
from server.app.context import RouteContext
from server.app.published import Feed

SVG = "image/svg+xml"
# Module size in CSS pixels and the quiet zone in modules: large enough to scan off a screen.
SCALE = 4
BORDER = 2
# Any of the eight masks gives a valid code every reader decodes; segno's search for the best
# one (ISO/IEC 18004 section 7.8.3) cost 80% of a QR code and the larger part of a whole
# `confcal build` (issue 12), so the mask is fixed.
MASK = 0


def qr_title(feed: Feed) -> str:
    return f"Subscribe: {feed.spec.title}"


def qr_code(text: str) -> segno.QRCode:
    """The QR code of `text` (error correction M: survives a smudged poster)."""
    return segno.make(text, error="m", mask=MASK)


@lru_cache(maxsize=1024)
def qr_svg(text: str, title: str) -> Representation:
    """`qr_code(text)` drawn as SVG."""
    out = io.BytesIO()
    qr_code(text).save(
        out,
        kind="svg",
        scale=SCALE,
        border=BORDER,
        xmldecl=False,
        title=title,
        dark="#000",
        light="#fff",
    )
    return Representation(out.getvalue(), SVG)


def qr_routes(context: RouteContext) -> list[Route]:
    async def feed_code(request: Request) -> Response:
        address = params.feed_address(request.path_params, ".svg")
        feed = None if address is None else (await context.current(request)).feed(*address)
        if feed is None:
            return params.not_found("no such feed")
        url = context.site(request).url(feed.path)
        return context.send(request, qr_svg(url, qr_title(feed)))

    return [
        Route(urls.ROUTE_QR, feed_code, methods=["GET", "HEAD"]),
        Route(urls.ROUTE_QR_KIND, feed_code, methods=["GET", "HEAD"]),
    ]
