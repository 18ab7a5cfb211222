"""The feed QR codes scan: our SVG drawing read back by a real reader (zxing-cpp's), and its
structure pinned (size, title, background, the modules drawn)."""

from __future__ import annotations

import re
from typing import cast

import numpy
import numpy.typing
import pytest
import zxingcpp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from server.pages.qr import BORDER, MASK, SCALE, qr_code, qr_svg, svg

LINKS = [
    "http://127.0.0.1:8080/feeds/all.ics",
    "https://confcal.example.org/c/pycon-2026/feeds/room/master-stage.ics",
    "https://example.org/feeds/speaker/" + "zoë-ødegård-" * 8 + ".ics",
]
# The smallest versions that hold them in byte mode at level M (ISO/IEC 18004 table 7: 26, 42,
# 62, 84, 152, 180 bytes for versions 2, 3, 4, 5, 8, 9): 36 bytes in version 3 (29 modules), 68
# in version 5 (37) (segno chose the same), and the third link's 158 UTF-8 bytes behind the
# 12-bit UTF-8 ECI mark (qr._eci) in version 9 (53); segno wrote it unmarked, as 134 ISO-8859-1
# bytes in version 8.
MODULES = [29, 37, 53]
_PATH = re.compile(rb'<path class="qrline" stroke="#000" d="([^"]*)"/>')


def _modules_of(drawing: bytes) -> numpy.typing.NDArray[numpy.uint8]:
    """The drawing's square (from its background path) with the dark runs of its path (`M x y
    h n` / `m dx dy h n`) set to 0, one cell a module, light cells 255."""
    size = int(re.search(rb'<path fill="#fff" d="M0 0h(\d+)v', drawing).group(1))  # type: ignore[union-attr]
    path = _PATH.search(drawing).group(1)  # type: ignore[union-attr]
    runs = re.findall(rb"([Mm])(-?[\d.]+) (-?[\d.]+)h(\d+)", path)
    assert b"".join(b"%s%s %sh%s" % run for run in runs) == path
    grid = numpy.full((size, size), 255, dtype=numpy.uint8)
    x = y = 0.0
    for move, dx, dy, length in runs:
        x, y = (float(dx), float(dy)) if move == b"M" else (x + float(dx), y + float(dy))
        grid[int(y - 0.5), int(x) : int(x) + int(length)] = 0
        x += int(length)
    return grid


def _read(drawing: bytes) -> list[tuple[str, str]]:
    """What zxing-cpp's reader finds in the drawing rendered at SCALE pixels a module, with the
    ISO quiet zone of 4 modules (we draw BORDER) completed around it. Plain text: the default
    (HRI) shows control characters as names (`<US>`)."""
    pixels = _modules_of(drawing).repeat(SCALE, 0).repeat(SCALE, 1)
    padded = numpy.pad(pixels, (4 - BORDER) * SCALE, constant_values=255)
    return [(found.text, found.ec_level) for found in zxingcpp.read_barcodes(padded, text_mode=zxingcpp.TextMode.Plain)]


@pytest.mark.parametrize("link", LINKS)
def test_the_drawn_svg_decodes_to_its_link_with_error_correction_m(link: str) -> None:
    assert _read(qr_svg.__wrapped__(link, "Subscribe").body) == [(link, "M")]


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=300))
@example("¡")  # the byte 0xA1 unmarked: zxing-cpp's reader guesses Shift_JIS, "｡"
def test_any_text_drawn_decodes_to_itself_with_error_correction_m(text: str) -> None:
    assert _read(qr_svg.__wrapped__(text, "Subscribe").body) == [(text, "M")]


@pytest.mark.parametrize("link", LINKS)
def test_the_code_has_the_fixed_mask(link: str) -> None:
    """zxing-cpp ignores an option it does not know: a misspelt one would bring the search back."""
    pixels = numpy.pad(_modules_of(qr_svg.__wrapped__(link, "Subscribe").body), 2, constant_values=255)

    found = zxingcpp.read_barcodes(pixels.repeat(SCALE, 0).repeat(SCALE, 1))

    # The stub types `extra` as object; it is a dict of the symbol's details.
    assert [cast(dict[str, object], f.extra)["DataMask"] for f in found] == [MASK]


@pytest.mark.parametrize(("link", "modules"), list(zip(LINKS, MODULES, strict=True)))
def test_the_code_is_the_smallest_version_that_holds_the_link(link: str, modules: int) -> None:
    rows = qr_code(link)

    assert [len(row) for row in rows] == [modules] * modules


@pytest.mark.parametrize(("link", "modules"), list(zip(LINKS, MODULES, strict=True)))
def test_the_svg_is_titled_sized_from_its_modules_on_a_light_square(link: str, modules: int) -> None:
    size = modules + 2 * BORDER
    pixels = size * SCALE

    body = qr_svg.__wrapped__(link, "Subscribe: R&D <Talks> “Zoë”").body

    head, tail = body.split(_PATH.search(body).group(0))  # type: ignore[union-attr]
    assert head.decode() == (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{pixels}" height="{pixels}">'
        "<title>Subscribe: R&amp;D &lt;Talks&gt; “Zoë”</title>"
        f'<g transform="scale({SCALE})"><path fill="#fff" d="M0 0h{size}v{size}h-{size}z"/>'
    )
    assert tail == b"</g></svg>\n"


@pytest.mark.parametrize("link", LINKS)
def test_the_path_draws_exactly_the_codes_modules_inside_the_border(link: str) -> None:
    expected = numpy.pad(
        numpy.array([list(row) for row in qr_code(link)], dtype=numpy.uint8), BORDER, constant_values=255
    )

    assert (_modules_of(qr_svg.__wrapped__(link, "Subscribe").body) == expected).all()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.lists(st.binary(min_size=n, max_size=n), min_size=n, max_size=n)))
def test_any_module_grid_is_drawn_exactly(noise: list[bytes]) -> None:
    """Any square of modules, rows without a dark module and runs at either edge included."""
    rows = [bytes(0 if byte % 2 else 255 for byte in row) for row in noise]
    expected = numpy.pad(numpy.array([list(row) for row in rows], dtype=numpy.uint8), BORDER, constant_values=255)

    assert (_modules_of(svg(rows, "Subscribe")) == expected).all()


@pytest.mark.parametrize(
    ("grid", "path"),
    [
        # Runs at both edges, an empty row crossed, a row starting left of the last run's end.
        (["#...#", ".....", ".##..", "#####", "....."], b"M2 2.5h1m3 0h1m-4 2h2m-3 1h5"),
        # The first run below an empty first row, and a row's first run right of the last end.
        ([".....", "..#.#", ".....", "#....", "....#"], b"M4 3.5h1m1 0h1m-5 2h1m3 1h1"),
        (["..", ".."], b""),
    ],
)
def test_the_path_is_written_in_its_fixed_form(grid: list[str], path: bytes) -> None:
    """The exact bytes, not only the modules they draw: every feed's QR code keeps its bytes
    (and ETag) from one drawer to the next."""
    rows = [bytes(0 if module == "#" else 255 for module in row) for row in grid]

    assert _PATH.search(svg(rows, "Subscribe")).group(1) == path  # type: ignore[union-attr]
