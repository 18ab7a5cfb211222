"""QR codes of feed links, drawn as SVG by the server (segno), for slides and posters.

    GET /qr/all.svg, /qr/{kind}/{slug}.svg (urls.feed_qr), under each conference's base

The code holds the feed's absolute https(http) link rather than webcal://: every phone camera
opens an https link, while webcal:// is only understood where a calendar app registered it, and
calendar apps accept the https link for a subscription too. The SVG depends only on that text,
so it is memoized by it and answered through `conditional.respond` (ETag, 304) like every feed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from xml.sax.saxutils import escape

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
# A run of dark modules in a matrix row (any non-zero module is dark).
_DARK_RUN = re.compile(b"[^\x00]+")


def qr_title(feed: Feed) -> str:
    return f"Subscribe: {feed.spec.title}"


def qr_code(text: str) -> segno.QRCode:
    """The QR code of `text` (error correction M: survives a smudged poster)."""
    return segno.make(text, error="m", mask=MASK)


@lru_cache(maxsize=1024)
def qr_svg(text: str, title: str) -> Representation:
    """`qr_code(text)` drawn as SVG."""
    return Representation(svg(qr_code(text).matrix, title), SVG)


def svg(matrix: Sequence[Sequence[int]], title: str) -> bytes:
    """The code's modules as one SVG path of horizontal dark runs on a light square, byte for
    byte what segno's SVG writer gives for these options (scale, border, colours, title, no
    XML declaration), without its general colour and unit handling: that writer was 40% of a
    QR code's cost and a static build draws one per feed (issue 12)."""
    size = len(matrix) + 2 * BORDER
    runs: list[str] = []
    # The path moves relative to where the last run ended (x), on the row's middle (y): the
    # first run of a row moves down from the last row drawn, the others along the row.
    last_x, last_y = 0, 0.0
    y = BORDER - 0.5
    for row in matrix:
        y += 1
        # The row's dark runs found by the regex engine, not a Python step per module (issue 12).
        spans = [run.span() for run in _DARK_RUN.finditer(bytes(row))]
        if not spans:
            continue
        (start, end), dy = spans[0], y - last_y
        runs.append(f"{'m' if runs else 'M'}{BORDER + start - last_x} {int(dy) if dy == int(dy) else dy}h{end - start}")
        for next_start, next_end in spans[1:]:
            runs.append(f"m{next_start - end} 0h{next_end - next_start}")
            end = next_end
        last_x, last_y = BORDER + end, y
    pixels = size * SCALE
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{pixels}" height="{pixels}" class="segno">'
        f'<title>{escape(title)}</title><g transform="scale({SCALE})">'
        f'<path fill="#fff" d="M0 0h{size}v{size}h-{size}z"/>'
        f'<path class="qrline" stroke="#000" d="{"".join(runs)}"/></g></svg>\n'
    ).encode("utf-8")


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
