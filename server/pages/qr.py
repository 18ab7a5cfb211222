"""QR codes of feed links, drawn as SVG by the server, for slides and posters.

    GET /qr/all.svg, /qr/{kind}/{slug}.svg (urls.feed_qr), under each conference's base

The code holds the feed's absolute https(http) link rather than webcal://: every phone camera
opens an https link, while webcal:// is only understood where a calendar app registered it, and
calendar apps accept the https link for a subscription too. The SVG depends only on that text,
so it is memoized by it and answered through `conditional.respond` (ETag, 304) like every feed.

The code is made by zxing-cpp (C++, through its Python binding), not by a pure-Python encoder:
`confcal build` makes one code per feed (thousands for a large conference), and a pure-Python
encoder (segno) was a large share of a build's CPU even with its mask search turned off;
zxing-cpp does the whole ISO/IEC 18004 encoding many times faster. We draw the SVG ourselves
(`svg`): its own (`Barcode.to_svg`) has an XML declaration, a DOCTYPE and a "Zint Generated Symbol" description
where we want an accessible `<title>`, is almost twice the bytes (a closed rectangle per run)
and took longer to make than our drawing does.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import islice
from xml.sax.saxutils import escape

import zxingcpp
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from feeds import urls
from server.pages import params
from server.pages.context import route_context
from server.snapshot.conditional import Representation
from server.snapshot.published import Feed

SVG = "image/svg+xml"
# Module size in CSS pixels and the quiet zone in modules: large enough to scan off a screen.
SCALE = 4
BORDER = 2
# Error correction level M (recovers about 15% of the codewords, ISO/IEC 18004): survives a
# smudged poster. zxing-cpp ignores keyword arguments it does not know, so a misspelt option
# would silently give level L, its default: tests/server/app/test_qr.py reads the level back.
EC_LEVEL = "M"
# Any of the eight data masks gives a valid code every reader decodes; choosing the best by the
# standard's penalty rules (ISO/IEC 18004 section 7.8.3) is most of zxing-cpp's time for a
# code, and a build makes one per feed, so the mask is fixed.
MASK = 0


def qr_title(feed: Feed) -> str:
    return f"Subscribe: {feed.spec.title}"


def _eci(text: str) -> dict[str, str]:
    """Non-ASCII text is marked as UTF-8 (ECI designator 26, ISO/IEC 18004 ECI mode). Unmarked bytes
    are ISO-8859-1 by the standard, but readers guess (zxing-cpp's reads a lone "¡" as Shift_JIS
    "｡"), and without the mark zxing-cpp writes Latin-1, Shift_JIS (Kanji mode) or UTF-8 bytes
    as the text allows. The mark costs 12 bits, and UTF-8 more bytes than Latin-1 or Kanji mode:
    a larger version for some texts; not for feed links, ASCII when the base URL is (slugs are)."""
    return {} if text.isascii() else {"eci": "UTF-8"}


def qr_code(text: str) -> list[bytes]:
    """The modules of the QR code of `text`, one `bytes` a row (0 dark, 255 light), without
    the quiet zone: the smallest version that holds `text` at error correction `EC_LEVEL`, with
    data mask `MASK`."""
    code = zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode, ec_level=EC_LEVEL, data_mask=MASK, **_eci(text))
    image = code.to_image(scale=1, add_quiet_zones=False)
    # The image is a buffer of rows of one byte a module (slicing its bytes needs no numpy);
    # zxing-cpp's stub declares only its __array_interface__, not the buffer protocol it has.
    modules, width = bytes(image), image.shape[1]  # type: ignore[call-overload]
    return [modules[start : start + width] for start in range(0, len(modules), width)]


@lru_cache(maxsize=1024)
def qr_svg(text: str, title: str) -> Representation:
    """`qr_code(text)` drawn as SVG."""
    return Representation(svg(qr_code(text), title), SVG)


class _Steps(dict[bytes, str]):
    """Path steps of a code `width` modules wide, by run (`_runs`): a dark run and the light
    modules and row ends (b"\\n") before it. The step moves from where the last run ended to the
    run's start and draws it: down a row for each row end, and along by the light modules less a
    row (and its row end) for each row end, the way back to the row's start. Made on first use,
    so a code's path is joined by the dict in C rather than formatted by Python for each of its
    hundreds of runs (and a build makes a code per feed)."""

    # Far above what a width's QR codes use (150 to 720 steps a width for 3,000 random texts of
    # up to 400 characters: long light runs are rare); bounds the memory (some 150 bytes a
    # step) any other grid could take.
    LIMIT = 50_000

    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width

    def __missing__(self, run: bytes) -> str:
        light = len(run.rstrip(b"\x00"))
        down = run.count(b"\n")
        step = f"m{light - down * (self.width + 1)} {down}h{len(run) - light}"
        if len(self) < self.LIMIT:
            self[run] = step
        return step


_STEPS_BY_WIDTH: dict[int, _Steps] = {}  # one a QR version drawn


def _runs(grid: bytes) -> list[bytes]:
    """Each dark run of `grid` (rows of 0 dark and 255 light modules joined by b"\\n") with the
    light modules and row ends before it, in order: the grid cut after every dark module that
    ends a run, two replacements and a split in C, cheaper than a regular expression matching
    run after run (hundreds of runs a code, a code per feed in a build)."""
    # b"|" is neither a module nor a row end.
    runs = grid.replace(b"\x00\xff", b"\x00|\xff").replace(b"\x00\n", b"\x00|\n").split(b"|")
    if not runs[-1].endswith(b"\x00"):
        runs.pop()  # the light modules after the last dark run, or a grid with none
    return runs


def svg(rows: Sequence[bytes], title: str) -> bytes:
    """The code's modules (`qr_code`: a square, 0 dark and 255 light) as one SVG path of
    horizontal dark runs on a light square of `len(rows) + 2 * BORDER` modules, `SCALE` pixels
    each, titled `title` for screen readers. One path of runs is a fraction of the bytes of a
    rectangle per module, and drawing it is a fraction of the cost of a general SVG writer; a
    static build draws one per feed.

    The path moves relative to where the last run ended (x), on the row's middle (y): the first
    run of a row moves down from the last row drawn, the others along the row. The first run of
    all moves to its absolute place, the others are `_Steps`."""
    size = len(rows) + 2 * BORDER
    runs = _runs(b"\n".join(rows))
    path = ""
    if runs:
        first = runs[0]
        light = len(first.rstrip(b"\x00"))
        # The light modules before it on its own row are those after its last row end (if any).
        x = BORDER + light - first.rfind(b"\n") - 1
        y = BORDER + 0.5 + first.count(b"\n")  # a row's middle: never a whole number
        path = f"M{x} {y}h{len(first) - light}"
        steps = _STEPS_BY_WIDTH.get(len(rows))
        if steps is None:
            steps = _STEPS_BY_WIDTH.setdefault(len(rows), _Steps(len(rows)))
        path += "".join(map(steps.__getitem__, islice(runs, 1, None)))
    pixels = size * SCALE
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{pixels}" height="{pixels}">'
        f'<title>{escape(title)}</title><g transform="scale({SCALE})">'
        f'<path fill="#fff" d="M0 0h{size}v{size}h-{size}z"/>'
        f'<path class="qrline" stroke="#000" d="{path}"/></g></svg>\n'
    ).encode("utf-8")


async def feed_code(request: Request) -> Response:
    context = route_context(request)
    address = params.feed_address(request.path_params, ".svg")
    feed = None if address is None else (await context.current(request)).feed(*address)
    if feed is None:
        return params.not_found("no such feed")
    url = context.site(request).url(feed.path)
    return context.send(request, qr_svg(url, qr_title(feed)), params.NO_PARAMS)


routes = [
    Route(urls.ROUTE_QR, feed_code, methods=["GET", "HEAD"]),
    Route(urls.ROUTE_QR_KIND, feed_code, methods=["GET", "HEAD"]),
]
